import { describe, expect, it } from 'vitest';
import type { VerificationExpiredEvent } from '../../src/delivery/events.js';
import { HandlerRegistry } from '../../src/delivery/handler-registry.js';
import { createReceiver, MemoryStore } from '../../src/index.js';
import { createTestClock, fixturePayload, signedDelivery } from '../../src/testing/index.js';

const expired = { type: 'verification.expired' } as VerificationExpiredEvent;

describe('HandlerRegistry.run', () => {
  it('returns nothing to wait for when every handler returns at once, and runs them in order', () => {
    const registry = new HandlerRegistry();
    const ran: string[] = [];
    registry.on('verification.expired', () => ran.push('first'));
    registry.on('verification.expired', () => ran.push('second'));
    expect(registry.run('verification.expired', expired)).toBeUndefined();
    expect(ran).toEqual(['first', 'second']);
  });

  it('waits for a handler that returns a promise before it runs the next', async () => {
    const registry = new HandlerRegistry();
    const ran: string[] = [];
    let release: () => void = () => undefined;
    registry.on('verification.expired', () => ran.push('first'));
    registry.on(
      'verification.expired',
      () =>
        new Promise<void>((resolve) => {
          release = () => {
            ran.push('second');
            resolve();
          };
        }),
    );
    registry.on('verification.expired', () => ran.push('third'));
    const running = registry.run('verification.expired', expired);
    expect(running).toBeInstanceOf(Promise);
    expect(ran).toEqual(['first']);
    release();
    await running;
    expect(ran).toEqual(['first', 'second', 'third']);
  });

  it('throws what a synchronous handler throws, and stops the run there', () => {
    const registry = new HandlerRegistry();
    const ran: string[] = [];
    registry.on('verification.expired', () => {
      throw new Error('handler broke');
    });
    registry.on('verification.expired', () => ran.push('after'));
    expect(() => registry.run('verification.expired', expired)).toThrow('handler broke');
    expect(ran).toEqual([]);
  });

  it('does not run a handler registered by another during the same run', () => {
    const registry = new HandlerRegistry();
    const ran: string[] = [];
    registry.on('verification.expired', () => {
      ran.push('registering');
      registry.on('verification.expired', () => ran.push('late'));
    });
    registry.run('verification.expired', expired);
    expect(ran).toEqual(['registering']);
    registry.run('verification.expired', expired);
    expect(ran).toEqual(['registering', 'registering', 'late']);
  });

  it('keeps transactional completion handlers apart, counted when added and removed', () => {
    const registry = new HandlerRegistry();
    const plain = () => undefined;
    const inTransaction = () => undefined;
    registry.on('verification.completed', plain);
    expect(registry.hasTransactional()).toBe(false);
    registry.on('verification.completed', inTransaction, { transactional: true });
    expect(registry.hasTransactional()).toBe(true);
    expect(registry.count('verification.completed')).toBe(2);
    registry.off('verification.completed', inTransaction);
    expect(registry.hasTransactional()).toBe(false);
    expect(registry.count('verification.completed')).toBe(1);
  });
});

describe('a delivery to handlers that return at once', () => {
  it('arms no lease renewal', async () => {
    const clock = createTestClock();
    const armed: number[] = [];
    const counting = {
      ...clock,
      setTimeout(callback: () => void, ms: number) {
        armed.push(ms);
        return clock.setTimeout(callback, ms);
      },
    };
    const leaseMs = 30_000;
    const receiver = createReceiver({
      secret: 'whsec_sync_handler',
      client: false,
      store: new MemoryStore(),
      clock: counting,
      leaseMs,
    });
    const delivered: string[] = [];
    receiver.on('verification.completed', (event) => {
      delivered.push(event.data.external_user_id);
    });
    const answer = await receiver.receive(
      await signedDelivery(fixturePayload({ external_user_id: 'u_sync_handler' }), {
        secret: 'whsec_sync_handler',
      }),
    );
    expect(answer.status).toBe(200);
    expect(delivered).toEqual(['u_sync_handler']);
    // A renewal is armed at a third of the lease (keep-lease.ts); none was.
    expect(armed).not.toContain(leaseMs / 3);
  });
});
