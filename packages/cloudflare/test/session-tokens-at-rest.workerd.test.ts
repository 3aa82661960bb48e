import type { Emulator } from '@faceverify/emulator';
import { sealedTokenCount, tokenLeaks } from '@faceverify/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContractWorker, startReceiverScenario } from './support-worker.js';

// Issue #18, item 5: session tokens at rest, on D1 in workerd with a real Receiver. Every row
// of every faceverify table holds no session token in any encoding, while sessions are open
// (only sealed) and after they closed (not even sealed).

let worker: ContractWorker;
let emulator: Emulator;
beforeAll(async () => {
  ({ worker, emulator } = await startReceiverScenario('d1-tokens-at-rest'));
});
afterAll(async () => {
  await worker?.close();
  await emulator?.close();
});

type Dump = { tables: string[]; dump: string };

describe('session tokens at rest (D1Store)', () => {
  it('a dump after sessions were started holds no token; after they closed, not even sealed', async () => {
    const tokens: string[] = [];
    for (const user of ['alice', 'bob']) {
      tokens.push((await worker.call<{ token: string }>(`/cost/start?user=${user}`)).token);
    }
    const open = await worker.call<Dump>('/dump');
    expect(open.tables).toEqual(
      expect.arrayContaining(['faceverify_records', 'faceverify_digests']),
    );
    expect(tokenLeaks(open.dump, tokens)).toEqual([]);
    expect(sealedTokenCount(open.dump)).toBe(2);

    await emulator.completeSession(tokens[0]!, 'verified');
    await emulator.webhooksSettled();
    expect((await worker.call<{ delivered: string[] }>('/cost/taken')).delivered).toEqual([
      'alice:webhook',
    ]);
    const partly = await worker.call<Dump>('/dump');
    expect(tokenLeaks(partly.dump, tokens)).toEqual([]);
    expect(sealedTokenCount(partly.dump)).toBe(1);

    await emulator.completeSession(tokens[1]!, 'high_risk');
    await emulator.webhooksSettled();
    expect((await worker.call<{ delivered: string[] }>('/cost/taken')).delivered).toEqual([
      'alice:webhook',
      'bob:webhook',
    ]);
    const closed = await worker.call<Dump>('/dump');
    expect(tokenLeaks(closed.dump, tokens)).toEqual([]);
    expect(sealedTokenCount(closed.dump)).toBe(0);
  });
});
