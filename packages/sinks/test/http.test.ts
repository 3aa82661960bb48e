import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigurationError } from '@faceverify/core';
import { Webhook } from 'standardwebhooks';
import { afterEach, expect, it } from 'vitest';
import { httpForwardSink } from '../src/http.js';
import { SinkError, type SinkMessage } from '../src/index.js';
import { IMAGE_URL, sinkReceiver, tally } from './support/receiver.js';

const SECRET = `whsec_${Buffer.from('sinks-forward-secret-32-bytes-ok').toString('base64')}`;
const TOKEN_IN_URL = 'internal-path-token-5f2a';

/** The internal endpoint: verifies each request as Standard Webhooks, then answers `status()`. */
interface Endpoint {
  url: string;
  port: number;
  /** `webhook-id` of every verified request, in order. */
  ids: string[];
  bodies: SinkMessage[];
  /** Requests whose signature did not verify. */
  refused: number;
  status: () => number;
  close(): Promise<void>;
}

const open: Endpoint[] = [];

afterEach(async () => {
  for (const endpoint of open.splice(0)) await endpoint.close();
});

async function readBody(request: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of request) body += chunk;
  return body;
}

async function startEndpoint(port = 0): Promise<Endpoint> {
  const verifier = new Webhook(SECRET);
  const endpoint: Endpoint = {
    url: '',
    port,
    ids: [],
    bodies: [],
    refused: 0,
    status: () => 204,
    close: async () => undefined,
  };
  const server: Server = createServer(async (request, response) => {
    const body = await readBody(request);
    try {
      const verified = verifier.verify(body, request.headers as Record<string, string>);
      endpoint.ids.push(request.headers['webhook-id'] as string);
      endpoint.bodies.push(verified as SinkMessage);
    } catch {
      endpoint.refused += 1;
      response.writeHead(401).end();
      return;
    }
    response.writeHead(endpoint.status()).end();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  endpoint.port = (server.address() as AddressInfo).port;
  endpoint.url = `http://127.0.0.1:${endpoint.port}/${TOKEN_IN_URL}/results`;
  endpoint.close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  open.push(endpoint);
  return endpoint;
}

it('POSTs each result signed as Standard Webhooks, webhook-id the event id, without the session token or the image link', async () => {
  const endpoint = await startEndpoint();
  const { receiver, deliver, seen } = sinkReceiver();
  receiver.on('verification.completed', httpForwardSink({ url: endpoint.url, secret: SECRET }));
  for (const user of ['user_a', 'user_b']) expect(await deliver(user)).toBe(200);

  expect(endpoint.refused).toBe(0);
  expect(endpoint.ids).toEqual(seen);
  expect(endpoint.bodies.map((body) => body.id)).toEqual(seen);
  for (const body of endpoint.bodies) {
    expect(body).not.toHaveProperty('sessionToken');
    expect(JSON.stringify(body)).not.toContain(IMAGE_URL);
  }
});

it('an endpoint that stored a result but answered 500 gets it again with the same webhook-id: at least once, duplicates counted', async () => {
  const endpoint = await startEndpoint();
  let answers = 0;
  endpoint.status = () => (++answers === 1 ? 500 : 204);
  const { receiver, deliver, retryAfter } = sinkReceiver();
  const errors: unknown[] = [];
  receiver.on('error', (error) => errors.push(error));
  receiver.on('verification.completed', httpForwardSink({ url: endpoint.url, secret: SECRET }));
  expect(await deliver('user_a')).toBe(500);
  expect((errors[0] as SinkError).clientCode).toBe('500');
  expect(await retryAfter(5_000)).toMatchObject({ delivered: 1 });

  expect(tally(endpoint.ids)).toEqual({ distinct: 1, duplicates: 1 });
});

it('results that arrive while the endpoint is down for 30 s wait in the store and are forwarded once it is back, none lost; errors name neither the URL nor the secret', async () => {
  const first = await startEndpoint();
  const { port } = first;
  await first.close();
  const { receiver, deliver, retryAfter, seen } = sinkReceiver();
  const errors: unknown[] = [];
  receiver.on('error', (error) => errors.push(error));
  receiver.on('verification.completed', httpForwardSink({ url: first.url, secret: SECRET }));

  for (const user of ['user_1', 'user_2', 'user_3']) expect(await deliver(user)).toBe(500);
  expect(await retryAfter(5_000)).toMatchObject({ leased: 3, delivered: 0 });
  expect(await retryAfter(30_000)).toMatchObject({ leased: 3, delivered: 0 });
  expect(errors.length).toBe(9);
  for (const error of errors) {
    expect(error).toBeInstanceOf(SinkError);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
    for (const secret of [TOKEN_IN_URL, String(port), SECRET.slice(6)]) {
      expect((error as Error).message).not.toContain(secret);
    }
  }

  const back = await startEndpoint(port);
  expect(await retryAfter(120_000)).toMatchObject({ leased: 3, delivered: 3 });
  expect(tally(back.ids)).toEqual({ distinct: 3, duplicates: 0 });
  expect(new Set(back.ids)).toEqual(new Set(seen));
});

it('refuses a secret that is not whsec_ base64, or a URL that is not http(s), without repeating either', () => {
  const wrong = 'not-a-standard-webhooks-secret';
  expect(() => httpForwardSink({ url: 'http://127.0.0.1/', secret: wrong })).toThrow(
    ConfigurationError,
  );
  try {
    httpForwardSink({ url: 'http://127.0.0.1/', secret: wrong });
  } catch (error) {
    expect((error as Error).message).toMatch(/`secret`/);
    expect((error as Error).message).not.toContain(wrong);
  }
  const url = `ftp://user:${TOKEN_IN_URL}@host/`;
  expect(() => httpForwardSink({ url, secret: SECRET })).toThrow(/`url`/);
  try {
    httpForwardSink({ url, secret: SECRET });
  } catch (error) {
    expect((error as Error).message).not.toContain(TOKEN_IN_URL);
  }
});
