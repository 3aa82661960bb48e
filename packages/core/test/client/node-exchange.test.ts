import { readFileSync } from 'node:fs';
import http, { Agent, createServer as createHttpServer } from 'node:http';
import { createServer, globalAgent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { type ScriptedServer, startScriptedServer } from './scripted-server.js';

// What the client sends with on Node when it is given no `fetch`: node:http and node:https
// (their global agents), not Node's `fetch`, whose Web streams cost more than twice the CPU
// per request. The failures each way sees are in failures.test.ts; this is what only the
// runtime's own client does.

// loopback-tls.key and .crt: a self-signed certificate for 127.0.0.1, made for this test alone
// (valid until 2126). It guards nothing.
const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url));
const PENDING = { token: 'tok_1', status: 'pending' };

let server: ScriptedServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

describe('the client on Node, given no fetch', () => {
  it('sends over node:http, never through the global fetch', async () => {
    const globalFetch = vi.spyOn(globalThis, 'fetch');
    server = await startScriptedServer(() => ({ status: 200, json: PENDING }));
    const client = createClient({ apiKey: 'fv_test_exchange', baseUrl: server.url });
    expect((await client.getSession('tok_1')).status).toBe('pending');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer fv_test_exchange');
    expect(globalFetch).not.toHaveBeenCalled();
  });

  it('sends through the agent set as the global one of node:http (as proxy agents are set)', async () => {
    server = await startScriptedServer(() => ({ status: 200, json: PENDING }));
    const connections: string[] = [];
    class CountingAgent extends Agent {
      override createConnection(...args: Parameters<Agent['createConnection']>) {
        connections.push(`${args[0].host}:${args[0].port}`);
        return super.createConnection(...args);
      }
    }
    const before = http.globalAgent;
    const agent = new CountingAgent({ keepAlive: true });
    http.globalAgent = agent;
    try {
      const client = createClient({ apiKey: 'fv_test_exchange', baseUrl: server.url });
      expect((await client.getSession('tok_1')).status).toBe('pending');
      expect(connections).toEqual([new URL(server.url).host]);
    } finally {
      http.globalAgent = before;
      agent.destroy();
    }
  });

  it('sends through an http.request replaced after the client was made (as nock and tracing do)', async () => {
    server = await startScriptedServer(() => ({ status: 200, json: PENDING }));
    const client = createClient({ apiKey: 'fv_test_exchange', baseUrl: server.url });
    const original = http.request;
    const seen: string[] = [];
    http.request = ((...args: Parameters<typeof http.request>) => {
      seen.push(String(args[0]));
      return original(...args);
    }) as typeof http.request;
    try {
      expect((await client.getSession('tok_1')).status).toBe('pending');
      expect(seen).toEqual([`${server.url}/v1/sessions/tok_1`]);
    } finally {
      http.request = original;
    }
  });

  it('sends a POST body whole, with its length and type', async () => {
    server = await startScriptedServer(() => ({
      status: 201,
      json: {
        token: 'tok_1',
        verify_url: 'https://verify.example.com/verify/tok_1',
        status: 'pending',
        external_user_id: 'user-é',
        expires_at: '2030-01-01T00:00:00.000Z',
      },
    }));
    const client = createClient({ apiKey: 'fv_test_exchange', baseUrl: server.url });
    await client.createSession({ externalUserId: 'user-é' });
    const [request] = server.requests;
    expect(JSON.parse(request?.body ?? '')).toEqual({ external_user_id: 'user-é' });
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['content-length']).toBe(String(Buffer.byteLength(request?.body ?? '')));
  });

  it('reads a character split between two chunks of the body', async () => {
    const body = Buffer.from(JSON.stringify({ ...PENDING, note: 'ré' }));
    // The two bytes of "é" go in two writes, the second once the first has left.
    const split = body.indexOf(0xc3) + 1;
    const splitting = createHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(body.subarray(0, split), () => setTimeout(() => res.end(body.subarray(split)), 5));
    });
    await new Promise<void>((resolve) => splitting.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = splitting.address() as AddressInfo;
      const client = createClient({
        apiKey: 'fv_test_exchange',
        baseUrl: `http://127.0.0.1:${port}`,
        allowInsecureHttp: true,
      });
      expect((await client.getSession('tok_1')).raw).toEqual({ ...PENDING, note: 'ré' });
    } finally {
      splitting.closeAllConnections();
      await new Promise((resolve) => splitting.close(resolve));
    }
  });

  it('reaches an https service with the CA set on the global agent', async () => {
    const tls = createServer(
      { key: fixture('loopback-tls.key'), cert: fixture('loopback-tls.crt') },
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(PENDING));
      },
    );
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    const before = globalAgent.options.ca;
    try {
      const { port } = tls.address() as AddressInfo;
      const client = createClient({
        apiKey: 'fv_test_exchange',
        baseUrl: `https://127.0.0.1:${port}`,
        maxRetries: 0,
      });
      // Unknown to the agent, the self-signed certificate is refused.
      await expect(client.getSession('tok_1')).rejects.toThrow(/SELF_SIGNED|self.signed/i);
      globalAgent.options.ca = fixture('loopback-tls.crt');
      expect((await client.getSession('tok_1')).status).toBe('pending');
    } finally {
      globalAgent.options.ca = before;
      globalAgent.destroy();
      tls.closeAllConnections();
      await new Promise((resolve) => tls.close(resolve));
    }
  });
});

describe('the client given a fetch', () => {
  it('sends through it', async () => {
    server = await startScriptedServer(() => ({ status: 200, json: PENDING }));
    const given = vi.fn((...args: Parameters<typeof fetch>) => fetch(...args));
    const client = createClient({ apiKey: 'fv_test_exchange', baseUrl: server.url, fetch: given });
    expect((await client.getSession('tok_1')).status).toBe('pending');
    expect(given).toHaveBeenCalledTimes(1);
    expect(String(given.mock.calls[0]?.[0])).toBe(`${server.url}/v1/sessions/tok_1`);
  });
});
