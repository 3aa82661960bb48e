import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../src/base/logging/logger.js';
import { createClient } from '../../src/client/index.js';
import {
  createdReply,
  RESULT_FIELDS,
  type Reply,
  type ScriptedServer,
  startScriptedServer,
} from './scripted-server.js';

const API_KEY = 'fv_live_S3CR3T_never_in_errors_or_logs';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  vi.unstubAllGlobals();
});

function capturingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const write = (message: string, fields?: Record<string, unknown>) =>
    lines.push(`${message} ${JSON.stringify(fields)}`);
  return { logger: { debug: write, info: write, warn: write, error: write }, lines };
}

/** Every string reachable from `value`: own properties, enumerable or not, `cause`s included. */
function strings(value: unknown, seen = new Set<unknown>(), depth = 0): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null || seen.has(value) || depth > 8) return [];
  seen.add(value);
  return Object.getOwnPropertyNames(value).flatMap((name) => {
    const descriptor = Object.getOwnPropertyDescriptor(value, name);
    return strings(
      descriptor && 'value' in descriptor ? descriptor.value : undefined,
      seen,
      depth + 1,
    );
  });
}

function expectNoKey(value: unknown, secret = API_KEY): void {
  const found = strings(value).filter((text) => text.includes(secret));
  expect(found).toEqual([]);
}

// A service that quotes the key back, as some do in "invalid key" answers.
const echoKey = (reply: (echo: string) => Reply) => reply(`Key ${API_KEY} is not valid.`);

const failingServers: [string, (index: number) => Reply][] = [
  [
    '401 that quotes the key',
    () =>
      echoKey((echo) => ({
        status: 401,
        json: { error: 'invalid_api_key', message: echo, key: API_KEY },
      })),
  ],
  [
    '429 until retries run out',
    () => echoKey((echo) => ({ status: 429, json: { message: echo, retry_after_ms: 10 } })),
  ],
  ['500 that quotes the key', () => echoKey((echo) => ({ status: 500, text: echo }))],
  [
    'invalid 200 body that quotes the key',
    () => ({ status: 200, json: { status: 'verified', note: API_KEY, verify_url: 'x' } }),
  ],
  ['hanging answer', () => ({ hang: 'before-headers' })],
  ['body that never ends', () => ({ hang: 'mid-body' })],
  ['dropped connection', () => ({ destroy: true })],
];

describe('the API key appears in no error and no log line', () => {
  it.each(failingServers)('after a %s', async (_name, script) => {
    server = await startScriptedServer((_request, index) => script(index));
    const { logger, lines } = capturingLogger();
    const client = createClient({
      apiKey: API_KEY,
      baseUrl: server.url,
      logger,
      timeoutMs: 100,
      maxRetries: 1,
    });
    const errors = await Promise.all([
      client.createSession({ externalUserId: 'user-1' }).then(
        () => 'no error',
        (e) => e,
      ),
      client.getSession('tok_1').then(
        () => 'no error',
        (e) => e,
      ),
    ]);
    for (const error of errors) {
      expect(error).toBeInstanceOf(Error);
      expectNoKey(error);
    }
    expectNoKey(lines);
  });

  it('when nothing listens', async () => {
    server = await startScriptedServer(() => ({ status: 200, json: {} }));
    const baseUrl = server.url;
    await server.close();
    server = undefined;
    const { logger, lines } = capturingLogger();
    const client = createClient({ apiKey: API_KEY, baseUrl, logger, maxRetries: 1 });
    const errors = await Promise.all([
      client.createSession({ externalUserId: 'user-1' }).catch((e) => e),
      client.getSession('tok_1').catch((e) => e),
    ]);
    for (const error of errors) expectNoKey(error);
    expectNoKey(lines);
  });

  it('in configuration errors', () => {
    const configurationErrors: unknown[] = [];
    const attempt = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        configurationErrors.push(error);
      }
    };
    attempt(() => createClient({ apiKey: API_KEY }));
    attempt(() => createClient({ apiKey: API_KEY, baseUrl: 'nope' }));
    attempt(() => createClient({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1:9', timeoutMs: -1 }));
    attempt(() => createClient({ apiKey: `${API_KEY} x`, baseUrl: 'http://127.0.0.1:9' }));
    vi.stubGlobal('window', {});
    vi.stubGlobal('document', {});
    attempt(() => createClient({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1:9' }));
    vi.unstubAllGlobals();
    expect(configurationErrors).toHaveLength(5);
    expectNoKey(configurationErrors);

    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJl';
    attempt(() => createClient({ apiKey: jwt, baseUrl: 'http://127.0.0.1:9' }));
    expect(configurationErrors).toHaveLength(6);
    expectNoKey(configurationErrors.at(-1), jwt);
  });

  it('nor in what successful calls log and return, even when the service echoes it', async () => {
    server = await startScriptedServer((request) =>
      request.method === 'POST'
        ? createdReply('tok_ok')
        : {
            status: 200,
            json: {
              token: 'tok_ok',
              status: 'verified',
              external_user_id: 'u',
              result: RESULT_FIELDS,
              echo: API_KEY,
            },
          },
    );
    const { logger, lines } = capturingLogger();
    const client = createClient({ apiKey: API_KEY, baseUrl: server.url, logger });
    const created = await client.createSession({ externalUserId: 'u' });
    const snapshot = await client.getSession(created.token);
    expect(snapshot.status).toBe('verified');
    expect((snapshot.raw as { echo: string }).echo).toBe('[redacted]');
    expectNoKey(snapshot);
    expect(lines.length).toBeGreaterThan(0);
    expectNoKey(lines);
  });
});
