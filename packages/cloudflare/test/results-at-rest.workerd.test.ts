import type { DeadLetterList } from '@faceverify/core';
import type { Emulator } from '@faceverify/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContractWorker, startReceiverScenario } from './support-worker.js';

// Issue 35, part 1: biometric results at rest, on D1 in workerd with a real Receiver. Every
// row of every faceverify table holds no user id, reason or image link in clear, through
// sessions, webhook and poll results, a handler failure and a dead letter.

const USER = 'canary-user-7f3a9';
const REASON = 'canary-reason-quartz-91';
const IMAGE = 'https://files.canary.example/front/canary-image-5d2e.jpg?sig=canary-sig-b81';
const CANARIES = [USER, REASON, 'canary-image-5d2e', 'canary-sig-b81'];

let worker: ContractWorker;
let emulator: Emulator;
beforeAll(async () => {
  ({ worker, emulator } = await startReceiverScenario('d1-results-at-rest'));
});
afterAll(async () => {
  await worker?.close();
  await emulator?.close();
});

type Dump = { tables: string[]; dump: string };

describe('results at rest (D1Store)', () => {
  it('a dump holds no user id, reason or image link in clear; dead letters list opened', async () => {
    const tokens: string[] = [];
    for (const n of [1, 2, 3]) {
      const path = `/cost/start?user=${USER}-${n}`;
      tokens.push((await worker.call<{ token: string }>(path)).token);
    }
    // By webhook; by polling (its webhook lost); still open.
    await emulator.completeSession(tokens[0]!, 'verified');
    await emulator.webhooksSettled();
    emulator.setCallbackUrl(null);
    await emulator.completeSession(tokens[1]!, 'high_risk');
    await worker.call('/cost/sweep');
    expect((await worker.call<{ delivered: string[] }>('/cost/taken')).delivered.sort()).toEqual([
      `${USER}-1:webhook`,
      `${USER}-2:poll`,
    ]);
    // A handler failure on the last attempt: a dead letter, ours.
    const secret = emulator.signingSecret;
    const payload = { external_user_id: USER, reason: REASON, frontImageUrl: IMAGE };
    expect(await worker.call('/untracked/deliver', { secret, payload })).toEqual({ status: 500 });

    const { dump } = await worker.call<Dump>('/dump');
    expect(CANARIES.filter((canary) => dump.includes(canary))).toEqual([]);
    expect(dump).toContain('fvr2.');

    const letters = await worker.call<DeadLetterList>('/untracked/dead-letters', { secret });
    expect(letters.sealed).toBeUndefined();
    expect(letters.deadLetters).toMatchObject([
      {
        externalUserId: USER,
        // A result given up keeps no image link, even sealed.
        data: { reason: REASON, frontImageUrl: '' },
        frontImage: { state: 'removed' },
      },
    ]);
    // With another secret, nothing opens: listed by key alone.
    const other = await worker.call<DeadLetterList>('/untracked/dead-letters', {
      secret: 'whsec_not_the_receivers_0123456789abcdef',
    });
    expect(other.deadLetters).toEqual([]);
    expect(other.sealed).toHaveLength(1);
  });
});
