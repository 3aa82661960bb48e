import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigurationError } from '../../src/base/errors.js';
import { createReceiver } from '../../src/receiver/create-receiver.js';
import type { ReceiverOptions } from '../../src/receiver/options.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { createTestClock } from '../../src/testing/test-clock.js';

const SECRET = 'whsec_receiver_configuration';

function configurationError(run: () => unknown): ConfigurationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigurationError;
  }
  throw new Error('expected a ConfigurationError');
}

async function rejection(run: () => Promise<unknown>): Promise<ConfigurationError> {
  const error = await run().then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ConfigurationError);
  return error as ConfigurationError;
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('a Receiver without API credentials', () => {
  function receiverWithoutClient() {
    vi.stubEnv('FACEVERIFY_API_KEY', '');
    vi.stubEnv('FACEVERIFY_BASE_URL', '');
    return createReceiver({ secret: SECRET });
  }

  it('refuses start() at once, naming both variables', async () => {
    const receiver = receiverWithoutClient();
    const error = configurationError(() => receiver.start());
    expect(error.code).toBe('configuration_error');
    expect(error.message).toContain('start()');
    expect(error.message).toContain('FACEVERIFY_API_KEY and FACEVERIFY_BASE_URL are not set');
    expect(error.message).toContain('client: { apiKey, baseUrl }');
    await receiver.stop();
  });

  it('refuses startVerification() and confirm(), naming the variables', async () => {
    const receiver = receiverWithoutClient();
    const started = await rejection(() => receiver.startVerification({ externalUserId: 'u1' }));
    expect(started.message).toContain('startVerification()');
    expect(started.message).toContain('FACEVERIFY_API_KEY and FACEVERIFY_BASE_URL');
    const confirmed = await rejection(() => receiver.confirm('tok_123456789'));
    expect(confirmed.message).toContain('confirm()');
    expect(confirmed.message).toContain('FACEVERIFY_API_KEY');
  });

  it('refuses half of the client configuration at construction, naming the variable that is missing', () => {
    vi.stubEnv('FACEVERIFY_API_KEY', '');
    vi.stubEnv('FACEVERIFY_BASE_URL', 'http://127.0.0.1:9');
    const noKey = configurationError(() => createReceiver({ secret: SECRET }));
    expect(noKey.message).toContain('FACEVERIFY_BASE_URL is set but FACEVERIFY_API_KEY is not');

    vi.stubEnv('FACEVERIFY_API_KEY', 'fv_test_key_0123456789abcdef');
    vi.stubEnv('FACEVERIFY_BASE_URL', '');
    const noUrl = configurationError(() => createReceiver({ secret: SECRET }));
    expect(noUrl.message).toContain('FACEVERIFY_API_KEY is set but FACEVERIFY_BASE_URL is not');
    expect(noUrl.message).not.toContain('fv_test_key');

    // Given as an option, a key without an address is refused the same way.
    vi.stubEnv('FACEVERIFY_API_KEY', '');
    const option = configurationError(() =>
      createReceiver({ secret: SECRET, client: { apiKey: 'fv_test_key_0123456789abcdef' } }),
    );
    expect(option.message).toContain('FACEVERIFY_BASE_URL');
  });

  it('still starts when made webhook-only on purpose (client: false), to retry deliveries', async () => {
    const receiver = createReceiver({ secret: SECRET, client: false });
    expect(() => receiver.start()).not.toThrow();
    await receiver.stop();
  });
});

describe('createReceiver option names', () => {
  it('refuses a top-level apiKey and says it belongs in client', () => {
    const options = { secret: SECRET, apiKey: 'fv_test_key' } as ReceiverOptions;
    const error = configurationError(() => createReceiver(options));
    expect(error.message).toContain('createReceiver() has no option "apiKey"');
    expect(error.message).toContain('Did you mean `client: { apiKey }`?');
    expect(error.message).not.toContain('fv_test_key');
  });

  it('suggests the nearest option name for a typo', () => {
    const options = { secret: SECRET, client: false, maxBodyByte: 1024 } as ReceiverOptions;
    const error = configurationError(() => createReceiver(options));
    expect(error.message).toContain('"maxBodyByte"');
    expect(error.message).toContain('Did you mean "maxBodyBytes"?');
  });

  it('names an unknown option with no near match and lists the known ones', () => {
    const options = { secret: SECRET, client: false, colour: 'blue' } as ReceiverOptions;
    const error = configurationError(() => createReceiver(options));
    expect(error.message).toContain('createReceiver() has no option "colour".');
    expect(error.message).not.toContain('Did you mean');
    expect(error.message).toContain('Known options: secret, client, store');
  });

  // It used to be accepted, and the first webhook then failed with
  // `context.telemetry?.attach is not a function`.
  it.each([
    ['an object with other methods', { record: () => undefined }],
    ['the openTelemetry function itself, not its result', () => undefined],
    ['null', null],
  ])('refuses a telemetry that is %s, at construction', (_name, telemetry) => {
    const options = { secret: SECRET, client: false, telemetry } as unknown as ReceiverOptions;
    const error = configurationError(() => createReceiver(options));
    expect(error.message).toContain('Receiver option "telemetry" must be what openTelemetry()');
    expect(error.message).toContain('it has no attach, span,');
  });
});

describe('FACEVERIFY_POLL_SCHEDULE_MS', () => {
  const client = { apiKey: 'fv_test_key_0123456789abcdef', baseUrl: 'http://127.0.0.1:9' };

  /** Whether a session tracked now is due for its first poll `afterMs` later. */
  async function dueAfter(afterMs: number, options: Partial<ReceiverOptions> = {}) {
    const clock = createTestClock();
    const store = new MemoryStore();
    const receiver = createReceiver({ secret: SECRET, client, store, clock, ...options });
    const start = clock.now();
    await receiver.track('tok_poll_schedule_1', 'user_1');
    const due = await store.leaseDue({ owner: 'test', now: start + afterMs, leaseMs: 1, limit: 1 });
    return due.length === 1;
  }

  it('sets the poll schedule when the option does not (the emulator prints a short one)', async () => {
    vi.stubEnv('FACEVERIFY_POLL_SCHEDULE_MS', '5000,10000,30000');
    expect(await dueAfter(4999)).toBe(false);
    expect(await dueAfter(5000)).toBe(true);
    expect(await dueAfter(1999, { pollScheduleMs: [2000] })).toBe(false);
    expect(await dueAfter(2000, { pollScheduleMs: [2000] })).toBe(true);
  });

  it('is 60 s without it', async () => {
    vi.stubEnv('FACEVERIFY_POLL_SCHEDULE_MS', '');
    expect(await dueAfter(59_999)).toBe(false);
    expect(await dueAfter(60_000)).toBe(true);
  });

  it('refuses a value that is not milliseconds, naming the variable', () => {
    vi.stubEnv('FACEVERIFY_POLL_SCHEDULE_MS', '5s');
    const error = configurationError(() => createReceiver({ secret: SECRET, client }));
    expect(error.message).toContain(
      'FACEVERIFY_POLL_SCHEDULE_MS must be comma-separated milliseconds',
    );
  });
});
