import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { expect } from 'vitest';
import type { ConformanceCase } from '../case.js';
import { createFixture, SECRET } from '../fixture.js';
import { assertAccepted, assertError, withApp } from '../harness.js';
import { postInPieces, postWithheldBody } from '../http/headers-only-request.js';
import type { ConformanceTarget, MountStyle } from '../target.js';

/**
 * Small enough to keep the case quick. The outcome does not depend on it: the rest of the
 * body is never sent, so only the deadline can end the read.
 */
const BODY_TIMEOUT_MS = 50;

export function bodyTimeoutCases(target: ConformanceTarget, mount: MountStyle): ConformanceCase[] {
  const spec = { mount, options: { bodyTimeoutMs: BODY_TIMEOUT_MS } };
  return [
    {
      name: 'a body that stops arriving is answered 408 body_timeout and the connection is closed',
      async run() {
        const fixture = createFixture();
        await withApp(target, spec, fixture, async (app) => {
          const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
          const half = delivery.body.subarray(0, delivery.body.byteLength >> 1);
          const { answer, closed } = await postWithheldBody(
            `${app.url}${app.webhookPath}`,
            delivery.headers,
            delivery.body.byteLength,
            { sentPart: half },
          );
          app.record(answer);
          const message = assertError(answer, 408, 'body_timeout');
          expect(message.includes('bodyTimeoutMs'), `names the option: ${message}`).toBeTruthy();
          await closed;
          expect(fixture.events.length).toBe(0);
        });
      },
    },
    {
      name: 'a body under its Content-Length that arrives in several pieces is read whole',
      async run() {
        const fixture = createFixture();
        await withApp(target, { mount }, fixture, async (app) => {
          const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
          const url = `${app.url}${app.webhookPath}`;
          assertAccepted(app.record(await postInPieces(url, delivery.headers, delivery.body, 4)));
          expect(fixture.events.length).toBe(1);
        });
      },
    },
    {
      name: 'a short bodyTimeoutMs still accepts a body that arrives whole',
      async run() {
        const fixture = createFixture();
        await withApp(target, spec, fixture, async (app) => {
          assertAccepted(
            await app.post(await signedDelivery(fixturePayload(), { secret: SECRET })),
          );
          expect(fixture.events.length).toBe(1);
        });
      },
    },
  ];
}
