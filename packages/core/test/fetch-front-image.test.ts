import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchFrontImage, ImageFetchError, type ImageFetchFailure } from '../src/index.js';
import { fixturePayload } from '../src/testing/index.js';

let server: Server;
let host: string;
let requests: string[] = [];
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/front.png') res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    else if (path === '/redirect')
      res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
    else if (path === '/huge') {
      res.writeHead(200, { 'content-type': 'image/png' });
      const chunk = Buffer.alloc(64 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 64 && res.write(chunk)) sent += 1;
        if (sent < 64) res.once('drain', pump);
        else res.end();
      };
      pump();
    } else if (path === '/page') res.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
    else if (path === '/expired')
      res.writeHead(403, { 'content-type': 'application/json' }).end('{}');
    else if (path === '/slow') setTimeout(() => res.writeHead(200).end(), 2000);
    else res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const eventFor = (path: string, receivedAt = new Date()) => ({
  data: fixturePayload({ frontImageUrl: `http://${host}${path}?sig=secret-signature&exp=1` }),
  receivedAt,
});

async function failure(promise: Promise<unknown>): Promise<ImageFetchFailure> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ImageFetchError);
  expect((error as Error).message).not.toContain('secret-signature');
  return (error as ImageFetchError).reason;
}

describe('fetchFrontImage', () => {
  it('downloads an image from an allowed host', async () => {
    const image = await fetchFrontImage(eventFor('/front.png'), { allowedHosts: [host] });
    expect(image.contentType).toBe('image/png');
    expect(Buffer.from(image.bytes).equals(PNG)).toBe(true);
  });

  it('refuses a host that is not allowed, without a request', async () => {
    requests = [];
    expect(
      await failure(
        fetchFrontImage(eventFor('/front.png'), { allowedHosts: ['files.example.test'] }),
      ),
    ).toBe('host_not_allowed');
    expect(requests).toEqual([]);
  });

  it('refuses plain http off this machine', async () => {
    const event = {
      data: fixturePayload({ frontImageUrl: 'http://files.example.test/a.png' }),
      receivedAt: new Date(),
    };
    expect(await failure(fetchFrontImage(event, { allowedHosts: ['files.example.test'] }))).toBe(
      'insecure_url',
    );
  });

  it('refuses redirects, oversize bodies and non-images', async () => {
    const options = { allowedHosts: [host], maxBytes: 256 * 1024 };
    expect(await failure(fetchFrontImage(eventFor('/redirect'), options))).toBe('redirect_refused');
    expect(await failure(fetchFrontImage(eventFor('/huge'), options))).toBe('too_large');
    expect(await failure(fetchFrontImage(eventFor('/page'), options))).toBe('not_an_image');
  });

  it('says the link expired after 15 minutes, before any request', async () => {
    requests = [];
    const old = new Date(Date.now() - 16 * 60 * 1000);
    expect(
      await failure(fetchFrontImage(eventFor('/front.png', old), { allowedHosts: [host] })),
    ).toBe('expired');
    expect(requests).toEqual([]);
    expect(await failure(fetchFrontImage(eventFor('/expired'), { allowedHosts: [host] }))).toBe(
      'expired',
    );
  });

  it('times out', async () => {
    expect(
      await failure(fetchFrontImage(eventFor('/slow'), { allowedHosts: [host], timeoutMs: 100 })),
    ).toBe('timeout');
  });
});
