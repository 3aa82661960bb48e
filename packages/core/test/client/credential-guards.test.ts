import { afterEach, describe, expect, it, vi } from 'vitest';
import { BrowserRefusedError, ConfigurationError } from '../../src/base/errors.js';
import { assertServerRuntime } from '../../src/client/browser-guard.js';
import { createClient } from '../../src/client/index.js';

const BASE_URL = 'https://verify.example.test';
const API_KEY = 'fv_test_credential_guards_key';

function base64url(text: string, padded = false): string {
  const encoded = Buffer.from(text).toString('base64url');
  return padded ? encoded.padEnd(Math.ceil(encoded.length / 4) * 4, '=') : encoded;
}

function refusal(run: () => unknown): ConfigurationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigurationError;
  }
  throw new Error('expected a ConfigurationError');
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('API keys that are tokens', () => {
  const claims = base64url('{"sub":"user-1","exp":1900000000}');
  it.each([
    [
      'a 5-segment JWE',
      `${base64url('{"alg":"dir","enc":"A256GCM"}')}..${base64url('iv-bytes')}.${base64url('ciphertext')}.${base64url('tag')}`,
    ],
    [
      'a JWT padded with =',
      `${base64url('{"alg":"HS256"}', true)}.${base64url('{"sub":"u"}', true)}.${base64url('sig', true)}`,
    ],
    [
      'a JWT whose JSON header has whitespace (eyAi…)',
      `${base64url('{ "alg": "HS256" }')}.${claims}.c2ln`,
    ],
    [
      'a JWT whose JSON header starts on a new line',
      `${base64url('{\n"alg":"HS256"}')}.${claims}.c2ln`,
    ],
  ])('refuses %s, saying why and without quoting it', (_name, token) => {
    const error = refusal(() => createClient({ apiKey: token, baseUrl: BASE_URL }));
    expect(error.message).toMatch(/dashboard session token is not an API key/);
    expect(error.message).toMatch(/Use the API key of your account/);
    for (const segment of token.split('.').filter((part) => part.length > 3)) {
      expect(error.message).not.toContain(segment);
    }
  });

  it('accepts keys with dots that are not tokens', () => {
    for (const apiKey of ['fv_live.abc.def', 'key.with.five.dot.parts', API_KEY]) {
      expect(() => createClient({ apiKey, baseUrl: BASE_URL })).not.toThrow();
    }
  });
});

describe('plain http base URLs', () => {
  it.each(['http://verify.example.test', 'http://10.0.0.5:4010', 'http://emulator:4010/'])(
    'refuses %s, naming the host and the fix, never the key',
    (baseUrl) => {
      const error = refusal(() => createClient({ apiKey: API_KEY, baseUrl }));
      expect(error.message).toContain(new URL(baseUrl).hostname);
      expect(error.message).toMatch(/unencrypted.*https:\/\//s);
      expect(error.message).toContain('allowInsecureHttp');
      expect(error.message).not.toContain(API_KEY);
    },
  );

  it('refuses it from FACEVERIFY_BASE_URL too, without quoting credentials in the URL', () => {
    vi.stubEnv('FACEVERIFY_BASE_URL', 'http://user:hunter2@verify.example.test');
    const error = refusal(() => createClient({ apiKey: API_KEY }));
    expect(error.message).toContain('FACEVERIFY_BASE_URL');
    expect(error.message).not.toContain('hunter2');
  });

  it.each([
    'http://localhost:4010',
    'http://127.0.0.1:4010',
    'http://127.1.2.3',
    'http://[::1]:4010',
    'http://emulator.localhost',
  ])('accepts loopback %s for the local emulator', (baseUrl) => {
    expect(() => createClient({ apiKey: API_KEY, baseUrl })).not.toThrow();
  });

  it('accepts another host with allowInsecureHttp', () => {
    expect(() =>
      createClient({ apiKey: API_KEY, baseUrl: 'http://emulator:4010', allowInsecureHttp: true }),
    ).not.toThrow();
  });
});

describe('browser refusal beyond pages', () => {
  class WorkerGlobalScope {}
  class DedicatedWorkerGlobalScope extends WorkerGlobalScope {}

  it('refuses a dedicated Web Worker (importScripts, self, no window or document)', () => {
    // The scope is passed in: a browser worker has no `process`, and Vitest needs its own.
    const self = new DedicatedWorkerGlobalScope();
    const worker = { self, WorkerGlobalScope, importScripts: () => undefined };
    expect(() => assertServerRuntime(false, worker)).toThrow(BrowserRefusedError);
    expect(() => assertServerRuntime(false, worker)).toThrow(/Web Worker/);
  });

  it('refuses a module worker without importScripts, by its WorkerGlobalScope', () => {
    const self = new DedicatedWorkerGlobalScope();
    expect(() => assertServerRuntime(false, { self, WorkerGlobalScope })).toThrow(
      BrowserRefusedError,
    );
  });

  it('runs in a worker with dangerouslyAllowBrowser', () => {
    const self = new DedicatedWorkerGlobalScope();
    expect(() => assertServerRuntime(true, { self, WorkerGlobalScope })).not.toThrow();
  });

  it.each([
    // workerd: `self` and WorkerGlobalScope exist, `self` is not an instance, the UA says so.
    ['workerd', { self: {}, WorkerGlobalScope, navigator: { userAgent: 'Cloudflare-Workers' } }],
    [
      'workerd with a WorkerGlobalScope self',
      {
        self: new DedicatedWorkerGlobalScope(),
        WorkerGlobalScope,
        navigator: { userAgent: 'Cloudflare-Workers' },
      },
    ],
    ['Deno', { self: {}, Deno: {}, process: { versions: { node: '22.0.0' } } }],
    ['Bun', { self: {}, Bun: {}, process: { versions: { node: '24.0.0' } } }],
    ['Node', { process: { versions: { node: '20.19.0' } } }],
  ])('runs in %s', (_name, scope) => {
    expect(() => assertServerRuntime(false, scope)).not.toThrow();
  });
});
