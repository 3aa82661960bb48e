import { describe, expect, it } from 'vitest';
import { cliRequest } from '../src/cli/cli-options.js';
import { parseDuration } from '../src/cli/duration.js';
import { parseFaultTrigger } from '../src/cli/fault-trigger.js';
import { parseArgs } from '../src/cli/parse-args.js';

const request = (argv: string[], env: Record<string, string> = {}) =>
  cliRequest(parseArgs(argv, env));

describe('command-line arguments', () => {
  it('default to port 4010 and no faults', () => {
    expect(request([]).options).toMatchObject({ port: 4010, faults: {} });
  });

  it('read durations with units', () => {
    expect(parseDuration('250', '--x')).toBe(250);
    expect(parseDuration('250ms', '--x')).toBe(250);
    expect(parseDuration('2s', '--x')).toBe(2_000);
    expect(parseDuration('1.5m', '--x')).toBe(90_000);
    expect(parseDuration('15m', '--x')).toBe(900_000);
    expect(parseDuration('1h', '--x')).toBe(3_600_000);
    for (const bad of ['0', '-1s', '2d', 's', ''])
      expect(() => parseDuration(bad, '--x')).toThrow(/--x/);
  });

  it('read fault triggers', () => {
    expect(parseFaultTrigger('always', '--f')).toEqual({ probability: 1 });
    expect(parseFaultTrigger('0.2', '--f')).toEqual({ probability: 0.2 });
    expect(parseFaultTrigger('1', '--f')).toEqual({ probability: 1 });
    expect(parseFaultTrigger('next:4', '--f')).toEqual({ next: 4 });
    for (const bad of ['1.5', '4', 'next:', 'sometimes']) {
      expect(() => parseFaultTrigger(bad, '--f')).toThrow(/--f/);
    }
  });

  it('take a fault flag alone as "always", even before another flag', () => {
    expect(request(['--duplicate-webhooks', '--corrupt-webhooks']).options.faults).toEqual({
      duplicateWebhooks: { probability: 1 },
      corruptWebhooks: { probability: 1 },
    });
  });

  it('map every option', () => {
    const { options, quiet } = request([
      '--host=0.0.0.0',
      '--public-url',
      'https://emulator.example',
      '--session-ttl',
      '2m',
      '--image-url-ttl',
      '30s',
      '--webhook-timeout',
      '1s',
      '--verify-limit',
      '5',
      '--verify-window',
      '10s',
      '--complete-limit',
      '3',
      '--complete-window',
      '20s',
      '--api-key',
      'fv_test_a',
      '--api-key',
      'fv_test_b',
      '--delay-webhooks-ms',
      '700',
      '--delay-webhooks',
      '0.5',
      '--seed',
      'demo',
      '--quiet',
    ]);
    expect(quiet).toBe(true);
    expect(options).toMatchObject({
      host: '0.0.0.0',
      publicUrl: 'https://emulator.example',
      sessionTtlMs: 120_000,
      imageUrlTtlMs: 30_000,
      webhookTimeoutMs: 1_000,
      rateLimits: {
        verify: { limit: 5, windowMs: 10_000 },
        complete: { limit: 3, windowMs: 20_000 },
      },
      apiKeys: ['fv_test_a', 'fv_test_b'],
      faults: { delayWebhooks: { probability: 0.5, ms: 700 } },
      seed: 'demo',
    });
  });

  it('refuse a flag given twice unless it repeats', () => {
    expect(() => request(['--port', '1', '--port', '2'])).toThrow(/given twice/);
  });

  it('refuse a value on a flag that takes none, and a bad boolean in the environment', () => {
    expect(() => request(['--quiet=yes'])).toThrow(/takes no value/);
    expect(() => request([], { FACEVERIFY_EMULATOR_QUIET: 'maybe' })).toThrow(
      /FACEVERIFY_EMULATOR_QUIET/,
    );
    expect(request([], { FACEVERIFY_EMULATOR_QUIET: 'false' }).quiet).toBe(false);
  });
});
