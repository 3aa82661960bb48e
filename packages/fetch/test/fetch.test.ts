import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigurationError, createReceiver, MemoryStore } from '@faceverify/core';
import { describe, expect, it } from 'vitest';
import { verificationWebhook } from '../src/index.js';

describe('verificationWebhook() setup', () => {
  it('without a secret anywhere throws a ConfigurationError naming the variable', () => {
    const saved = process.env.FACEVERIFY_WEBHOOK_SECRET;
    delete process.env.FACEVERIFY_WEBHOOK_SECRET;
    try {
      expect(() => verificationWebhook()).toThrow(ConfigurationError);
      expect(() => verificationWebhook()).toThrow(/FACEVERIFY_WEBHOOK_SECRET/);
    } finally {
      if (saved !== undefined) process.env.FACEVERIFY_WEBHOOK_SECRET = saved;
    }
  });

  it('uses a Receiver it is given as is, or builds one from options', () => {
    const receiver = createReceiver({ secret: 'whsec_x', client: false, store: new MemoryStore() });
    expect(verificationWebhook(receiver).receiver).toBe(receiver);
    expect(verificationWebhook({ secret: 'whsec_y', client: false }).receiver.maxBodyBytes).toBe(
      256 * 1024,
    );
  });

  it('refuses a bodyTimeoutMs that is not a positive number', () => {
    const receiver = createReceiver({ secret: 'whsec_x', client: false });
    expect(() => verificationWebhook(receiver, { bodyTimeoutMs: -1 })).toThrow(/bodyTimeoutMs/);
  });

  it('the package sources import no node: modules (they must bundle for Workers)', () => {
    const sourceDir = join(import.meta.dirname, '..', 'src');
    const files = readdirSync(sourceDir, { recursive: true, encoding: 'utf8' }).filter((file) =>
      file.endsWith('.ts'),
    );
    expect(files.length).toBeGreaterThan(0);
    const importing = files.filter((file) =>
      /from\s+['"]node:|import\(\s*['"]node:/.test(readFileSync(join(sourceDir, file), 'utf8')),
    );
    expect(importing).toEqual([]);
  });
});
