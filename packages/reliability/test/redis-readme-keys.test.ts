import { readFileSync } from 'node:fs';
import { createReceiver } from '@faceverify/core';
import { privacyCanary, signedDelivery } from '@faceverify/core/testing';
import { startEmulator } from '@faceverify/emulator';
import { RedisStore } from '@faceverify/redis';
import { startRedisServer } from '@faceverify/test-support';
import { Redis } from 'ioredis';
import { expect, it, onTestFinished } from 'vitest';
import { startReceiverServer } from './support/receiver-server.js';

// packages/redis/README.md's key table is what an operator reads to tell the store's keys in
// their Redis: every key a Receiver's workload leaves is one of its rows, every row is a key
// such a workload leaves, and the placeholders in key names are what the names hold (keyed
// hashes, never a user's id or a session token).
const README = readFileSync(new URL('../../redis/README.md', import.meta.url), 'utf8');

interface KeyRow {
  /** The key as the table writes it, e.g. `uo:<user key>`. */
  shown: string;
  /** The table's words for what a placeholder holds, matched against real names. */
  pattern: RegExp;
}

// What each placeholder of the table holds, as the bullets under the table say.
const PLACEHOLDERS: Record<string, string> = {
  '<record key>': '(t1:[A-Za-z0-9_-]{43}|webhook:[0-9a-f]{32})',
  '<user key>': 'u1:[A-Za-z0-9_-]{43}(\\.[^:]+)?',
  '<state>': '(pending|delivering|completed|expired|failed)',
  '<digest>': '[0-9a-f]{32}',
  '<instance id>': '[A-Za-z0-9_-]{12}',
  '<start key>': 's1:[A-Za-z0-9_-]{43}',
  '<counter key>': 'n1:(u:u1:[A-Za-z0-9_-]{43}(\\.[^:]+)?|a:[^:]*):\\d{4}-\\d{2}-\\d{2}(T\\d{2})?',
};

/** The rows of the table under "## Data model", each key with the names it stands for. */
function documentedKeys(): KeyRow[] {
  const section = README.slice(README.indexOf('## Data model'));
  const table = /\n(\|[^\n]*\n)+/.exec(section)?.[0] ?? '';
  return [...table.matchAll(/^\| `([^`]+)`/gm)].map(([, shown = '']) => {
    const source = shown
      .split(/(<[^>]+>)/)
      .map((part) => {
        if (!part.startsWith('<')) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        const holds = PLACEHOLDERS[part];
        expect(holds, `what ${part} holds`).toBeDefined();
        return holds;
      })
      .join('');
    return { shown, pattern: new RegExp(`^${source}$`) };
  });
}

it("every key a Receiver's workload leaves in Redis is a row of the README's key table, and every row is such a key", async () => {
  const server = await startRedisServer();
  const emulator = await startEmulator({ seed: 'redis-readme-keys' });
  const redis = new Redis(server.url, { maxRetriesPerRequest: 2 });
  onTestFinished(async () => {
    redis.disconnect();
    await emulator.close();
    await server.stop();
  });
  const canary = privacyCanary();
  const prefix = 'fvdocs:';
  const store = new RedisStore({ redis, prefix });
  const secret = emulator.signingSecret;
  const receiver = createReceiver({
    secret,
    client: { apiKey: emulator.apiKey, baseUrl: emulator.url },
    store,
    logger: false,
    maxDeliveryAttempts: 1,
  });
  receiver.on('verification.completed', (event) => {
    if (event.data.status === 'failed') throw new Error('the archive is down');
  });
  receiver.on('verification.undeliverable', () => undefined);
  receiver.on('error', () => undefined);
  // A webhook-only Receiver on the same store keeps a delivery matched to no session.
  const webhookOnly = createReceiver({ secret, client: false, store, logger: false });
  webhookOnly.on('verification.completed', () => undefined);
  const app = await startReceiverServer(receiver);
  onTestFinished(() => app.close());
  emulator.setCallbackUrl(app.webhookUrl);

  const [verified, failing] = await Promise.all(
    [1, 2, 3].map((n) =>
      receiver.startVerification({ externalUserId: `${canary.externalUserId}-${n}` }),
    ),
  );
  await emulator.completeSession(verified!.token, 'verified');
  await emulator.completeSession(failing!.token, 'high_risk');
  await emulator.webhooksSettled();
  await webhookOnly.receive(await signedDelivery(canary.payload({ status: 'failed' }), { secret }));

  const names = (await redis.keys(`${prefix}*`)).map((key) => key.slice(prefix.length)).sort();
  const rows = documentedKeys();
  expect(
    names.filter((name) => !rows.some((row) => row.pattern.test(name))),
    'keys the table does not describe',
  ).toEqual([]);
  expect(
    rows.filter((row) => !names.some((name) => row.pattern.test(name))).map((row) => row.shown),
    'rows no key matches',
  ).toEqual([]);
  // Nobody's id or session token in a key's name.
  expect(canary.foundIn(names.join('\n'))).toEqual([]);
  for (const { token } of [verified!, failing!]) {
    expect(names.some((name) => name.includes(token))).toBe(false);
  }
});
