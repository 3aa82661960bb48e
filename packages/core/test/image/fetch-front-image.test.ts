import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchFrontImage, ImageFetchError, type ImageFetchFailure } from '../../src/index.js';
import { fixturePayload } from '../../src/testing/index.js';

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
    else if (path === '/front.svg')
      res.writeHead(200, { 'content-type': 'image/svg+xml' }).end('<svg><script>1</script></svg>');
    else if (path === '/front.heic') res.writeHead(200, { 'content-type': 'image/heic' }).end(PNG);
    else if (path === '/front-typed.png')
      res.writeHead(200, { 'content-type': 'Image/PNG; charset=binary' }).end(PNG);
    else if (path === '/stalls') {
      // Headers and a first chunk, then nothing: only the timeout can end the download.
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(PNG);
    } else if (path === '/cut') {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': '4096' });
      res.write(PNG, () => res.destroy());
    } else res.writeHead(500).end();
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

  it('allows only the default port for an entry without a port, without a request', async () => {
    requests = [];
    const hostname = host.split(':')[0]!;
    expect(
      await failure(fetchFrontImage(eventFor('/front.png'), { allowedHosts: [hostname] })),
    ).toBe('host_not_allowed');
    expect(requests).toEqual([]);
    const event = {
      data: fixturePayload({ frontImageUrl: 'https://files.example.test:6379/a.png' }),
      receivedAt: new Date(),
    };
    const error = await fetchFrontImage(event, { allowedHosts: ['files.example.test'] }).catch(
      (caught: unknown) => caught as ImageFetchError,
    );
    expect(error).toBeInstanceOf(ImageFetchError);
    expect((error as ImageFetchError).reason).toBe('host_not_allowed');
    expect((error as ImageFetchError).message).toMatch(/6379.*default port only/);
  });

  it('refuses SVG and other non-raster types unless allowedContentTypes names them', async () => {
    const options = { allowedHosts: [host] };
    expect(await failure(fetchFrontImage(eventFor('/front.svg'), options))).toBe(
      'type_not_allowed',
    );
    expect(await failure(fetchFrontImage(eventFor('/front.heic'), options))).toBe(
      'type_not_allowed',
    );
    const heic = await fetchFrontImage(eventFor('/front.heic'), {
      ...options,
      allowedContentTypes: ['image/heic'],
    });
    expect(heic.contentType).toBe('image/heic');
    const typed = await fetchFrontImage(eventFor('/front-typed.png'), options);
    expect(Buffer.from(typed.bytes).equals(PNG)).toBe(true);
  });

  it('a body that outlasts the timeout is an ImageFetchError timeout, not a raw TimeoutError', async () => {
    expect(
      await failure(fetchFrontImage(eventFor('/stalls'), { allowedHosts: [host], timeoutMs: 200 })),
    ).toBe('timeout');
  });

  it('network failures and aborts are ImageFetchErrors too', async () => {
    expect(await failure(fetchFrontImage(eventFor('/cut'), { allowedHosts: [host] }))).toBe(
      'network_error',
    );
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedHost = `127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const refused = {
      data: fixturePayload({ frontImageUrl: `http://${closedHost}/a.png?sig=secret-signature` }),
      receivedAt: new Date(),
    };
    expect(await failure(fetchFrontImage(refused, { allowedHosts: [closedHost] }))).toBe(
      'network_error',
    );
    const controller = new AbortController();
    const pending = fetchFrontImage(eventFor('/stalls'), {
      allowedHosts: [host],
      signal: controller.signal,
    });
    controller.abort();
    expect(await failure(pending)).toBe('aborted');
  });
});
