import { afterEach, describe, expect, it, vi } from 'vitest';
import { BrowserRefusedError, ConfigurationError } from '../../src/base/errors.js';
import { createClient } from '../../src/client/index.js';

const BASE_URL = 'http://127.0.0.1:9';
const API_KEY = 'fv_test_configuration_key';

function configurationError(run: () => unknown): ConfigurationError {
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
  vi.unstubAllGlobals();
});

describe('createClient configuration', () => {
  it('names FACEVERIFY_API_KEY when no API key is given or set', () => {
    vi.stubEnv('FACEVERIFY_API_KEY', '');
    const error = configurationError(() => createClient({ baseUrl: BASE_URL }));
    expect(error.code).toBe('configuration_error');
    expect(error.message).toContain('FACEVERIFY_API_KEY');
  });

  it('names FACEVERIFY_BASE_URL when no base URL is given or set', () => {
    vi.stubEnv('FACEVERIFY_BASE_URL', '');
    const error = configurationError(() => createClient({ apiKey: API_KEY }));
    expect(error.message).toContain('FACEVERIFY_BASE_URL');
  });

  it('says how to pass each setting where no process environment exists (Workers)', () => {
    vi.stubEnv('FACEVERIFY_API_KEY', '');
    vi.stubEnv('FACEVERIFY_BASE_URL', '');
    expect(configurationError(() => createClient({ apiKey: API_KEY })).message).toContain(
      '`client: { baseUrl: env.FACEVERIFY_BASE_URL }`',
    );
    expect(configurationError(() => createClient({ baseUrl: BASE_URL })).message).toContain(
      '`client: { apiKey: env.FACEVERIFY_API_KEY }`',
    );
  });

  it.each(['not a url', 'ftp://files.example.com', 'javascript:alert(1)'])(
    'names FACEVERIFY_BASE_URL when the base URL is %j',
    (baseUrl) => {
      const error = configurationError(() => createClient({ apiKey: API_KEY, baseUrl }));
      expect(error.message).toContain('FACEVERIFY_BASE_URL');
    },
  );

  it('reads both credentials from the environment', () => {
    vi.stubEnv('FACEVERIFY_API_KEY', API_KEY);
    vi.stubEnv('FACEVERIFY_BASE_URL', BASE_URL);
    const client = createClient();
    expect(typeof client.createSession).toBe('function');
    expect(typeof client.getSession).toBe('function');
  });

  it.each([
    ['a signed JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJlX3BhcnQ'],
    ['an unsigned JWT', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ1c2VyIn0.'],
  ])('refuses %s given as the API key, without quoting it', (_name, jwt) => {
    const error = configurationError(() => createClient({ apiKey: jwt, baseUrl: BASE_URL }));
    expect(error.message).toMatch(/dashboard session token is not an API key/);
    expect(error.message).not.toContain(jwt);
  });

  it('names FACEVERIFY_API_KEY when the JWT came from the environment', () => {
    vi.stubEnv('FACEVERIFY_API_KEY', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln');
    const error = configurationError(() => createClient({ baseUrl: BASE_URL }));
    expect(error.message).toContain('FACEVERIFY_API_KEY');
  });

  it.each(['two words', 'line\nbreak', 'café'])(
    'refuses an API key that cannot be a header value (%j), without quoting it',
    (apiKey) => {
      const error = configurationError(() => createClient({ apiKey, baseUrl: BASE_URL }));
      expect(error.message).not.toContain(apiKey);
    },
  );

  it.each([
    ['timeoutMs', { timeoutMs: 0 }],
    ['timeoutMs', { timeoutMs: Number.NaN }],
    ['maxRetries', { maxRetries: -1 }],
    ['maxRetries', { maxRetries: 1.5 }],
    ['createSessionsPerMinute', { createSessionsPerMinute: 0 }],
    ['paceWindowMs', { paceWindowMs: -5 }],
  ])('refuses an unusable %s: %o', (name, options) => {
    const error = configurationError(() =>
      createClient({ apiKey: API_KEY, baseUrl: BASE_URL, ...options }),
    );
    expect(error.message).toContain(name);
  });
});

describe('browser refusal', () => {
  it('refuses to run where window and document exist, explaining why', () => {
    vi.stubGlobal('window', {});
    vi.stubGlobal('document', {});
    const error = configurationError(() => createClient({ apiKey: API_KEY, baseUrl: BASE_URL }));
    expect(error).toBeInstanceOf(BrowserRefusedError);
    expect(error.code).toBe('browser_refused');
    expect(error.message).toMatch(/API key must never be shipped to the browser/);
  });

  it('runs there with dangerouslyAllowBrowser', () => {
    vi.stubGlobal('window', {});
    vi.stubGlobal('document', {});
    const client = createClient({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      dangerouslyAllowBrowser: true,
    });
    expect(typeof client.getSession).toBe('function');
  });

  it('runs where only window exists, as in some server runtimes', () => {
    vi.stubGlobal('window', {});
    expect(() => createClient({ apiKey: API_KEY, baseUrl: BASE_URL })).not.toThrow();
  });
});

describe('call arguments', () => {
  const client = createClient({ apiKey: API_KEY, baseUrl: BASE_URL });

  it('rejects an empty externalUserId before sending anything', async () => {
    await expect(client.createSession({ externalUserId: '' })).rejects.toThrow(TypeError);
  });

  it('rejects an empty token before sending anything', async () => {
    await expect(client.getSession('')).rejects.toThrow(TypeError);
  });

  it('rejects an unusable per-call timeout', async () => {
    await expect(client.getSession('tok', { timeoutMs: -1 })).rejects.toThrow(/timeoutMs/);
  });
});

describe('createClient option names', () => {
  it('refuses a misspelt option and suggests the right one', () => {
    const options = { apiKey: API_KEY, baseURL: BASE_URL } as Parameters<typeof createClient>[0];
    const error = configurationError(() => createClient(options));
    expect(error.message).toContain('createClient() has no option "baseURL".');
    expect(error.message).toContain('Did you mean "baseUrl"?');
  });

  it('refuses a fetch option that is not a function, naming it', () => {
    const options = {
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      fetch: 'node-fetch',
    } as unknown as Parameters<typeof createClient>[0];
    const error = configurationError(() => createClient(options));
    expect(error.message).toBe('"fetch" must be a function like fetch, got string.');
  });

  it('says where a webhook secret goes instead', () => {
    const options = { apiKey: API_KEY, baseUrl: BASE_URL, secret: 'whsec_x' } as Parameters<
      typeof createClient
    >[0];
    const error = configurationError(() => createClient(options));
    expect(error.message).toContain('the `secret` option of createReceiver()');
    expect(error.message).not.toContain('whsec_x');
  });
});

describe('a base URL ending in /v1', () => {
  it.each(['http://127.0.0.1:9/v1', 'http://127.0.0.1:9/v1/', 'https://verify.example.com/api/V1'])(
    'is refused at construction, naming FACEVERIFY_BASE_URL and the URL to set (%s)',
    (baseUrl) => {
      const error = configurationError(() => createClient({ apiKey: API_KEY, baseUrl }));
      expect(error.message).toContain('FACEVERIFY_BASE_URL) ends in /v1');
      expect(error.message).toMatch(
        /Set FACEVERIFY_BASE_URL to https?:\/\/[^ ]+(:9|\/api), without \/v1\./,
      );
    },
  );

  it('is accepted as part of a longer path segment', () => {
    expect(() =>
      createClient({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1:9/apiv1' }),
    ).not.toThrow();
  });
});
