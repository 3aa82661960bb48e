import { createTestClock, fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { waitFor } from '@faceverify/test-support/wait-for';
import { expect } from 'vitest';
import type { ConformanceCase } from '../case.js';
import { createFixture, SECRET } from '../fixture.js';
import { assertAccepted, assertError, withApp } from '../harness.js';
import type { ConformanceTarget, MountStyle } from '../target.js';

export function deliveryCases(target: ConformanceTarget, mount: MountStyle): ConformanceCase[] {
  return [
    {
      name: 'a correctly signed body that is not JSON is 400 payload_invalid',
      async run() {
        const fixture = createFixture();
        await withApp(target, { mount }, fixture, async (app) => {
          const delivery = await signedDelivery(fixturePayload(), {
            secret: SECRET,
            rawBody: '{"event":"verification.completed","status":',
          });
          assertError(await app.post(delivery), 400, 'payload_invalid');
          expect(fixture.events.length).toBe(0);
        });
      },
    },
    {
      name: 'a handler that throws makes it 500 handler_failed',
      async run() {
        const fixture = createFixture({ handler: { kind: 'throw' } });
        await withApp(target, { mount }, fixture, async (app) => {
          const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
          assertError(await app.post(delivery), 500, 'handler_failed');
          expect(fixture.events.length, 'the handler was called').toBe(1);
        });
      },
    },
    {
      name: 'a slow handler is acknowledged with 202 and still finishes',
      async run() {
        // The handler holds until released and the deadline passes only when the test clock
        // moves: the 202 is decided by the order of events, never by which timer wins.
        const clock = createTestClock();
        const fixture = createFixture({
          handler: { kind: 'held' },
          receiver: { ackAfterMs: 150, clock },
        });
        await withApp(target, { mount }, fixture, async (app) => {
          const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
          const answering = app.post(delivery);
          await waitFor(() => fixture.events.length === 1, 'the handler starts');
          await clock.advance(150);
          const answer = await answering;
          expect(answer.status, `status (body: ${answer.text})`).toBe(202);
          expect(answer.json).toStrictEqual({ received: true, processing: true });
          expect(fixture.finished.length, 'answered before the handler finished').toBe(0);
          fixture.release();
          await waitFor(() => fixture.finished.length === 1, 'the handler finishes');
        });
      },
    },
    {
      name: 'the same delivery twice is handled once; the second is 200 duplicate',
      async run() {
        const fixture = createFixture();
        await withApp(target, { mount }, fixture, async (app) => {
          const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
          assertAccepted(await app.post(delivery));
          assertAccepted(await app.post(delivery), { duplicate: true });
          expect(fixture.events.length).toBe(1);
        });
      },
    },
  ];
}
