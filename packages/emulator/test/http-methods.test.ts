import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../src/index.js';
import { rawRequest } from './support/raw-request.js';

const running: Emulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
});

async function start() {
  const warnings: string[] = [];
  const emulator = await startEmulator({
    logger: { info: () => undefined, warn: (message) => warnings.push(message) },
  });
  running.push(emulator);
  return { emulator, warnings };
}

describe('requests without Content-Length', () => {
  it('a chunked session runs end to end: create, complete, read, and set the callback URL', async () => {
    const { emulator, warnings } = await start();
    const created = await rawRequest(`${emulator.url}/v1/verify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emulator.apiKey}`, 'content-type': 'application/json' },
      chunks: ['{"external_user_id":', '"user-chunked"}'],
    });
    expect(created.status).toBe(201);
    expect(created.headers['content-length']).toBeDefined();
    const token = created.json().token as string;
    const completed = await rawRequest(`${emulator.url}/v1/sessions/${token}/complete`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      chunks: ['{"outcome"', ':"verified"}'],
    });
    expect(completed.status).toBe(200);
    expect(completed.json().status).toBe('verified');
    const session = await rawRequest(`${emulator.url}/v1/sessions/${token}`, {
      method: 'GET',
      headers: { authorization: `Bearer ${emulator.apiKey}` },
    });
    expect(session.json().status).toBe('verified');
    const settings = await rawRequest(`${emulator.url}/__emulator/settings`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      chunks: ['{"callbackUrl":', '"http://127.0.0.1:9/hook"}'],
    });
    expect(settings.status).toBe(200);
    expect(emulator.callbackUrl).toBe('http://127.0.0.1:9/hook');
    expect(warnings.filter((line) => line.startsWith('request failed'))).toEqual([]);
  });

  it('a chunked body over the limit is 413, not 500', async () => {
    const { emulator, warnings } = await start();
    const chunk = `"${'x'.repeat(16 * 1024)}",`;
    const response = await rawRequest(`${emulator.url}/v1/verify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emulator.apiKey}`, 'content-type': 'application/json' },
      chunks: ['[', chunk, chunk, chunk, chunk, chunk, '0]'],
    });
    expect(response.status).toBe(413);
    expect(response.json().error).toBe('payload_too_large');
    expect(warnings.filter((line) => line.startsWith('request failed'))).toEqual([]);
  });
});

describe('a body that stops arriving', () => {
  it('is answered 408 body_timeout once bodyTimeoutMs has passed, and the connection is not held', async () => {
    const emulator = await startEmulator({
      bodyTimeoutMs: 200,
      logger: { info: () => undefined, warn: () => undefined },
    });
    running.push(emulator);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        `${emulator.url}/v1/verify`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${emulator.apiKey}`,
            'content-type': 'application/json',
            'content-length': '100',
          },
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            body += chunk;
          });
          res.on('end', () => {
            req.destroy();
            resolve({ status: res.statusCode ?? 0, body });
          });
        },
      );
      req.on('error', reject);
      // Ten of the hundred bytes announced, then nothing more.
      req.write('{"external');
    });
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toMatchObject({ success: false, error: 'body_timeout' });
  });
});

describe('methods a path does not take', () => {
  it.each([
    ['DELETE', '/v1/verify', 'POST, OPTIONS'],
    ['PUT', '/v1/sessions/some-token', 'GET, HEAD, OPTIONS'],
    ['DELETE', '/__emulator/settings', 'GET, HEAD, PUT, OPTIONS'],
    ['POST', '/__emulator/faults', 'GET, HEAD, PUT, OPTIONS'],
    ['GET', '/v1/sessions/some-token/complete', 'POST, OPTIONS'],
  ])('%s %s is 405 with Allow: %s', async (method, path, allow) => {
    const { emulator, warnings } = await start();
    const response = await rawRequest(`${emulator.url}${path}`, { method });
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe(allow);
    expect(response.json().error).toBe('method_not_allowed');
    expect(warnings.filter((line) => line.startsWith('request failed'))).toEqual([]);
  });

  it('an unknown path is still 404', async () => {
    const { emulator } = await start();
    const response = await rawRequest(`${emulator.url}/v1/nothing-here`, { method: 'DELETE' });
    expect(response.status).toBe(404);
  });
});

describe('OPTIONS', () => {
  it('answers the CORS preflight of the hosted page completion call', async () => {
    const { emulator, warnings } = await start();
    const preflight = await rawRequest(`${emulator.url}/v1/sessions/some-token/complete`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://hosted-page.example.test',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['access-control-allow-methods']).toBe('POST');
    expect(preflight.headers['access-control-allow-headers']).toBe('Content-Type');
    const session = await emulator.createSession({ externalUserId: 'user-cors' });
    const completed = await rawRequest(`${emulator.url}/v1/sessions/${session.token}/complete`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://hosted-page.example.test' },
      chunks: ['{"outcome":"liveness_failed"}'],
    });
    expect(completed.status).toBe(200);
    expect(completed.headers['access-control-allow-origin']).toBe('*');
    expect(warnings.filter((line) => line.startsWith('request failed'))).toEqual([]);
  });

  it('answers OPTIONS elsewhere with Allow and no CORS grant for API-key endpoints', async () => {
    const { emulator } = await start();
    for (const [path, allow] of [
      ['/v1/verify', 'POST, OPTIONS'],
      ['/__emulator/settings', 'GET, HEAD, PUT, OPTIONS'],
    ] as const) {
      const response = await rawRequest(`${emulator.url}${path}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example.test', 'access-control-request-method': 'POST' },
      });
      expect(response.status, path).toBe(204);
      expect(response.headers.allow, path).toBe(allow);
      expect(response.headers['access-control-allow-origin'], path).toBeUndefined();
    }
  });
});
