import { fixturePayload, signedDelivery, tamperedDelivery } from '@faceverify/core/testing';
import { expect } from 'vitest';
import type { ConformanceCase } from '../case.js';
import { createFixture, SECRET } from '../fixture.js';
import { assertAccepted, assertError, withApp } from '../harness.js';
import type { ConformanceTarget, LaterMiddlewareAnswer, MountStyle } from '../target.js';

export function passThroughCases(target: ConformanceTarget, mount: MountStyle): ConformanceCase[] {
  const spec = { mount, options: { passThrough: true } };
  return [
    {
      name: 'passThrough: later middleware gets the verified event and answers',
      async run() {
        const fixture = createFixture();
        await withApp(target, spec, fixture, async (app) => {
          const payload = fixturePayload({ external_user_id: 'user_pass_through' });
          const answer = await app.post(await signedDelivery(payload, { secret: SECRET }));
          expect(answer.status, `status (body: ${answer.text})`).toBe(200);
          const expected: LaterMiddlewareAnswer = {
            later: true,
            externalUserId: 'user_pass_through',
            source: 'webhook',
          };
          expect(answer.json).toStrictEqual(expected);
          expect(fixture.events.length).toBe(1);
        });
      },
    },
    {
      name: 'passThrough: a rejected webhook is answered by the receiver, later middleware never runs',
      async run() {
        const fixture = createFixture();
        await withApp(target, spec, fixture, async (app) => {
          const delivery = await tamperedDelivery(fixturePayload(), { secret: SECRET });
          assertError(await app.post(delivery), 401, 'signature_invalid');
        });
      },
    },
    {
      name: 'passThrough: a duplicate carries no event, so the receiver acknowledges it',
      async run() {
        const fixture = createFixture();
        await withApp(target, spec, fixture, async (app) => {
          const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
          expect((await app.post(delivery)).json?.later).toBe(true);
          assertAccepted(await app.post(delivery), { duplicate: true });
          expect(fixture.events.length).toBe(1);
        });
      },
    },
  ];
}
