import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, NetworkError, TimeoutError } from '../../src/base/errors.js';
import { createClient } from '../../src/client/index.js';
import { createTestClock, type TestClock } from '../../src/testing/index.js';
import { drive, until } from '../support-clock.js';
import { type Reply, type ScriptedServer, startScriptedServer } from './scripted-server.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const pending = { status: 200, json: { token: 'tok_1', status: 'pending' } } satisfies Reply;
const serverError = {
  status: 503,
  json: { success: false, message: 'Try later.' },
} satisfies Reply;

// Every failure as each way of sending sees it: the runtime's own (node:http on Node) and a
// `fetch` given as an option (Node's own here).
describe.each([
  { exchange: "the runtime's own HTTP client", fetch: undefined },
  { exchange: 'the fetch option', fetch: (...args: Parameters<typeof fetch>) => fetch(...args) },
])('through $exchange', ({ fetch: fetchOption }) => {
  async function clientFor(
    script: (index: number) => Reply,
    options: { timeoutMs?: number; maxRetries?: number; clock?: TestClock } = {},
  ) {
    server = await startScriptedServer((_request, index) => script(index));
    return createClient({
      apiKey: 'fv_test_failures',
      baseUrl: server.url,
      ...(fetchOption ? { fetch: fetchOption } : {}),
      ...options,
    });
  }

  const requestsSeen = () => server?.requests.length ?? 0;

  describe('getSession retries transient failures', () => {
    it('retries 5xx with backoff until it succeeds', async () => {
      const clock = createTestClock();
      // No attempt times out while the test moves the clock through the backoffs.
      const client = await clientFor((index) => (index < 2 ? serverError : pending), {
        clock,
        timeoutMs: 3_600_000,
      });
      const started = clock.now();
      const session = client.getSession('tok_1');
      await until(() => requestsSeen() === 1);
      expect((await drive(clock, session, 10)).status).toBe('pending');
      expect(server?.requests).toHaveLength(3);
      expect(clock.now() - started, 'resent without a backoff').toBeGreaterThan(0);
    });

    it('retries a timed-out attempt', async () => {
      const clock = createTestClock();
      const client = await clientFor(
        (index) => (index === 0 ? { hang: 'before-headers' } : pending),
        { timeoutMs: 150, clock },
      );
      const session = client.getSession('tok_1');
      await until(() => requestsSeen() === 1);
      await clock.advance(150);
      // Through the backoff only: the retry is answered at once, so its own limit never passes.
      while (requestsSeen() < 2) await clock.advance(10);
      expect((await session).status).toBe('pending');
      expect(server?.requests).toHaveLength(2);
    });

    it('retries a dropped connection', async () => {
      const clock = createTestClock();
      const client = await clientFor((index) => (index === 0 ? { destroy: true } : pending), {
        clock,
        timeoutMs: 3_600_000,
      });
      expect((await drive(clock, client.getSession('tok_1'), 10)).status).toBe('pending');
      expect(server?.requests).toHaveLength(2);
    });

    it('throws the last error after maxRetries', async () => {
      const clock = createTestClock();
      const client = await clientFor(() => serverError, {
        maxRetries: 2,
        clock,
        timeoutMs: 3_600_000,
      });
      const error = await drive(clock, client.getSession('tok_1'), 10).catch((e) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error.serviceStatus).toBe(503);
      expect(server?.requests).toHaveLength(3);
    });

    it('does not retry 4xx answers', async () => {
      const client = await clientFor(() => ({ status: 401, json: { error: 'invalid_api_key' } }));
      const error = await client.getSession('tok_1').catch((e) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error.serviceStatus).toBe(401);
      expect(error.message).toBe(
        "GET /v1/sessions/:token failed with status 401: invalid_api_key. The service refused the API key: check FACEVERIFY_API_KEY (or `client: { apiKey }`); keys are in the service's Settings.",
      );
      expect(server?.requests).toHaveLength(1);
    });
  });

  describe('createSession never resends what may have reached the service', () => {
    it('throws a 5xx at once', async () => {
      const client = await clientFor(() => serverError);
      const error = await client.createSession({ externalUserId: 'user-1' }).catch((e) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error.serviceStatus).toBe(503);
      expect(error.message).toMatch(/was not resent/);
      expect(server?.requests).toHaveLength(1);
    });

    it('throws a timeout at once, with code "timeout"', async () => {
      const clock = createTestClock();
      const client = await clientFor(() => ({ hang: 'before-headers' }), { timeoutMs: 150, clock });
      const started = clock.now();
      const failing = client.createSession({ externalUserId: 'user-1' }).catch((e) => e);
      await until(() => requestsSeen() === 1);
      const error = await drive(clock, failing, 10);
      expect(error).toBeInstanceOf(TimeoutError);
      expect(error.code).toBe('timeout');
      expect(error.timeoutMs).toBe(150);
      expect(error.message).toMatch(/did not complete within 150 ms\. .*was not resent/);
      // Thrown when the time limit passed, without a retry's backoff on top (clock time).
      expect(clock.now() - started).toBe(150);
      expect(server?.requests).toHaveLength(1);
    });

    it('throws a connection closed mid-body as a NetworkError, never reading the part', async () => {
      const client = await clientFor(() => ({ cut: 'mid-body' }));
      const error = await client.createSession({ externalUserId: 'user-1' }).catch((e) => e);
      expect(error).toBeInstanceOf(NetworkError);
      expect(error.message).toMatch(
        /^POST \/v1\/verify failed without a response .*was not resent/,
      );
      expect(server?.requests).toHaveLength(1);
    });

    it('throws a dropped connection at once, with code "network_error"', async () => {
      const client = await clientFor(() => ({ destroy: true }));
      const error = await client.createSession({ externalUserId: 'user-1' }).catch((e) => e);
      expect(error).toBeInstanceOf(NetworkError);
      expect(error.code).toBe('network_error');
      expect(error.cause).toBeDefined();
      expect(server?.requests).toHaveLength(1);
    });
  });

  describe('timeouts and aborts', () => {
    it('times out a body that never finishes', async () => {
      const client = await clientFor(() => ({ hang: 'mid-body' }), {
        timeoutMs: 150,
        maxRetries: 0,
      });
      const error = await client.getSession('tok_1').catch((e) => e);
      expect(error).toBeInstanceOf(TimeoutError);
    });

    it('lets a call override the timeout', async () => {
      const clock = createTestClock();
      const client = await clientFor(() => ({ hang: 'before-headers' }), { maxRetries: 0, clock });
      const started = clock.now();
      const failing = client.getSession('tok_1', { timeoutMs: 100 }).catch((e) => e);
      await until(() => requestsSeen() === 1);
      const error = await drive(clock, failing, 10);
      expect(error).toBeInstanceOf(TimeoutError);
      expect(error.timeoutMs).toBe(100);
      expect(clock.now() - started).toBe(100);
    });

    it('rejects with the abort reason, promptly, while a request hangs', async () => {
      const clock = createTestClock();
      const client = await clientFor(() => ({ hang: 'before-headers' }), { clock });
      const controller = new AbortController();
      const reason = new Error('shutting down');
      const started = clock.now();
      const failing = client.getSession('tok_1', { signal: controller.signal }).catch((e) => e);
      await until(() => requestsSeen() === 1);
      controller.abort(reason);
      // Rejected without any time passing on the client's clock.
      expect(await failing).toBe(reason);
      expect(clock.now()).toBe(started);
      expect(server?.requests).toHaveLength(1);
    });

    it('rejects at once, sending nothing, when the signal is already aborted', async () => {
      const client = await clientFor(() => pending);
      const signal = AbortSignal.abort(new Error('too late'));
      await expect(client.getSession('tok_1', { signal })).rejects.toThrow('too late');
      await expect(client.createSession({ externalUserId: 'u' }, { signal })).rejects.toThrow(
        'too late',
      );
      expect(server?.requests).toHaveLength(0);
    });

    it('throws NetworkError when nothing listens', async () => {
      const client = await clientFor(() => pending, { maxRetries: 1 });
      await server?.close();
      const error = await client.getSession('tok_1').catch((e) => e);
      expect(error).toBeInstanceOf(NetworkError);
      expect(error.message).toMatch(
        /^GET \/v1\/sessions\/:token failed without a response \(ECONNREFUSED\)/,
      );
      server = undefined;
    });
  });
});
