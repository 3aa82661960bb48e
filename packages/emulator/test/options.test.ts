import { ConfigurationError } from '@faceverify/core';
import { describe, expect, it } from 'vitest';
import { type EmulatorOptions, startEmulator } from '../src/index.js';

describe('startEmulator options', () => {
  it.each<[string, EmulatorOptions, RegExp]>([
    ['a port out of range', { port: 70_000 }, /port/],
    ['an empty host', { host: ' ' }, /host/],
    [
      'a callback URL that is not http(s)',
      { callbackUrl: 'mailto:ops@example.com' },
      /callbackUrl/,
    ],
    ['a public URL that is not a URL', { publicUrl: 'emulator' }, /publicUrl/],
    ['no API keys', { apiKeys: [] }, /apiKeys/],
    ['an API key with a space', { apiKeys: ['fv test'] }, /apiKeys\[0\]/],
    ['a JWT as an API key', { apiKeys: ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln'] }, /JWT/],
    ['the same key twice', { apiKeys: ['fv_test_a', 'fv_test_a'] }, /twice/],
    ['an empty signing secret', { signingSecret: '' }, /signingSecret/],
    ['a zero session lifetime', { sessionTtlMs: 0 }, /sessionTtlMs/],
    ['a fractional image lifetime', { imageUrlTtlMs: 1.5 }, /imageUrlTtlMs/],
    ['a zero rate limit', { rateLimits: { verify: { limit: 0 } } }, /rateLimits\.verify\.limit/],
    ['an invalid fault', { faults: { dropWebhooks: 2 } }, /dropWebhooks/],
  ])('refuse %s with a ConfigurationError naming it', async (_case, options, message) => {
    const error = await startEmulator(options).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(message);
  });

  it('announce the public URL in verify_url when one is given', async () => {
    const emulator = await startEmulator({ publicUrl: 'https://emulator.example/' });
    try {
      expect(emulator.url).toBe('https://emulator.example');
      const session = await emulator.createSession({ externalUserId: 'u' });
      expect(session.verify_url).toBe(`https://emulator.example/verify/${session.token}`);
    } finally {
      await emulator.close();
    }
  });

  it('close() can be called twice', async () => {
    const emulator = await startEmulator();
    await emulator.close();
    await emulator.close();
    await expect(fetch(`${emulator.url}/__emulator/health`)).rejects.toThrow();
  });
});
