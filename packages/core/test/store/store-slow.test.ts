import { describe, expect, it } from 'vitest';
import { createReceiver, MemoryStore, type ReceiverAlert } from '../../src/index.js';
import { createTestClock, fixturePayload, signedDelivery } from '../../src/testing/index.js';

const SECRET = 'whsec_store_slow';

/** A MemoryStore whose `remember` (the first call of every webhook) waits while `stalled`. */
class StallingStore extends MemoryStore {
  private release: (() => void) | undefined;
  private gate: Promise<void> | undefined;
  /** Calls of `remember` waiting at the gate now. */
  waiting = 0;
  stall(): void {
    this.gate = new Promise((resolve) => {
      this.release = resolve;
    });
  }
  gated(): boolean {
    return this.gate !== undefined;
  }
  resume(): void {
    this.gate = undefined;
    this.release?.();
  }
  override async remember(options: Parameters<MemoryStore['remember']>[0]): Promise<boolean> {
    if (this.gate) {
      this.waiting += 1;
      await this.gate;
      this.waiting -= 1;
    }
    return super.remember(options);
  }
}

async function setUp(storeSlowMs?: number) {
  const clock = createTestClock();
  const store = new StallingStore();
  const logged: string[] = [];
  const receiver = createReceiver({
    secret: SECRET,
    client: false,
    store,
    clock,
    logger: { error: (message) => logged.push(message) },
    ...(storeSlowMs === undefined ? {} : { storeSlowMs }),
  });
  receiver.on('verification.completed', () => undefined);
  // A Receiver's first webhook derives its token keys with Web Crypto, on the thread pool, in
  // real time: done here, before any stall, so that no call but the gated one is still waiting
  // when the test clock passes the threshold, however busy the machine.
  const warm = await signedDelivery(fixturePayload({ external_user_id: 'warm' }), {
    secret: SECRET,
  });
  if ((await receiver.receive(warm)).status !== 200) throw new Error('the warm-up was refused');
  const alerts: ReceiverAlert[] = [];
  receiver.on('alert', (alert) => {
    alerts.push(alert);
  });
  /**
   * Sends a webhook of `user` and resolves once its first store call waits at the gate (the
   * stall is timed from there on the test clock), with the answer still to come.
   */
  const webhook = async (user: string) => {
    const delivery = await signedDelivery(fixturePayload({ external_user_id: user }), {
      secret: SECRET,
    });
    const waitingBefore = store.waiting;
    const answer = receiver.receive(delivery);
    while (store.gated() && store.waiting === waitingBefore) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { answer };
  };
  return { clock, store, receiver, alerts, logged, webhook };
}

describe('store_slow', () => {
  it('is raised 5 s into a stall, while the call still waits, and logged once', async () => {
    const { clock, store, receiver, alerts, logged, webhook } = await setUp();
    store.stall();
    let answered = false;
    const answers: Promise<{ status: number }>[] = [];
    for (const user of ['u1', 'u2', 'u3']) {
      const { answer } = await webhook(user);
      answers.push(
        answer.then((response) => {
          answered = true;
          return response;
        }),
      );
    }
    await clock.advance(4999);
    expect(alerts).toEqual([]);
    await clock.advance(1);
    expect(answered).toBe(false);
    expect(alerts.map((alert) => alert.code)).toEqual(['store_slow']);
    expect(alerts[0]!.message).toContain('store.remember() had not answered after 5000 ms');
    expect(alerts[0]!.message).toContain("Check the store's server");
    expect(logged).toEqual([alerts[0]!.message]);
    // The instance itself still serves: the store answers the health check.
    expect(await receiver.health()).toMatchObject({
      ready: true,
      status: 'degraded',
      reasons: ['store_slow'],
    });
    store.resume();
    expect((await Promise.all(answers)).map((answer) => answer.status)).toEqual([200, 200, 200]);
    // Another stall within the window counts, and logs nothing new.
    store.stall();
    const { answer: late } = await webhook('u4');
    await clock.advance(5000);
    store.resume();
    expect((await late).status).toBe(200);
    expect(alerts).toHaveLength(1);
    expect(logged).toHaveLength(1);
  });

  it('a store that answers within storeSlowMs raises nothing', async () => {
    const { clock, store, receiver, alerts, webhook } = await setUp(2000);
    store.stall();
    const { answer } = await webhook('u1');
    await clock.advance(1999);
    store.resume();
    expect((await answer).status).toBe(200);
    await clock.advance(60_000);
    expect(alerts).toEqual([]);
    expect((await receiver.health()).status).toBe('ok');
  });
});
