import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { expect } from 'vitest';
import type { ConformanceCase } from '../case.js';
import { createFixture, SECRET } from '../fixture.js';
import { assertAccepted, assertError, ROUTE_PATH, withApp } from '../harness.js';
import {
  type ConformanceTarget,
  DEFAULT_WEBHOOK_PATH,
  type MountStyle,
  OWN_ROUTE_PATH,
  OWN_ROUTE_TEXT,
} from '../target.js';

const CUSTOM_PATH = '/custom/faceverify-hook';

function useOnlyCases(target: ConformanceTarget): ConformanceCase[] {
  return [
    {
      name: 'another method on the webhook path is 405 with Allow: POST',
      async run() {
        const fixture = createFixture();
        await withApp(target, { mount: 'use' }, fixture, async (app) => {
          for (const method of ['GET', 'PUT', 'DELETE']) {
            const answer = await app.send(DEFAULT_WEBHOOK_PATH, {
              method,
              ...(method === 'PUT' ? { body: '{}' } : {}),
            });
            assertError(answer, 405, 'method_not_allowed');
            expect(answer.headers.get('allow')).toBe('POST');
          }
          expect(fixture.events.length).toBe(0);
        });
      },
    },
    {
      name: 'a path below the webhook path is not the webhook',
      async run() {
        const fixture = createFixture();
        await withApp(target, { mount: 'use' }, fixture, async (app) => {
          const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
          const answer = await app.postTo(`${DEFAULT_WEBHOOK_PATH}/extra`, delivery);
          expect(answer.status, 'the app found no route there').toBe(404);
          expect(fixture.events.length).toBe(0);
        });
      },
    },
    {
      name: 'the path option moves the webhook off the default path',
      async run() {
        const fixture = createFixture();
        await withApp(
          target,
          { mount: 'use', options: { path: CUSTOM_PATH } },
          fixture,
          async (app) => {
            expect(app.webhookPath).toBe(CUSTOM_PATH);
            const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
            const atDefault = await app.postTo(DEFAULT_WEBHOOK_PATH, delivery);
            expect(atDefault.status, 'nothing listens on the default path').toBe(404);
            assertAccepted(await app.post(delivery));
            expect(fixture.events.length).toBe(1);
          },
        );
      },
    },
  ];
}

export function routingCases(target: ConformanceTarget, mount: MountStyle): ConformanceCase[] {
  return [
    ...(mount === 'use' ? useOnlyCases(target) : []),
    ...(mount === 'route'
      ? [
          {
            name: 'route-mounted on a path that is not the default, it needs no path option',
            async run() {
              const fixture = createFixture();
              await withApp(target, { mount }, fixture, async (app) => {
                expect(app.webhookPath).toBe(ROUTE_PATH);
                const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
                assertAccepted(await app.post(delivery));
                expect(fixture.events.length).toBe(1);
              });
            },
          },
        ]
      : []),
    {
      name: "requests to other paths reach the app's own route, whatever their method",
      async run() {
        const fixture = createFixture();
        await withApp(target, { mount }, fixture, async (app) => {
          const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
          const posted = await app.postTo(OWN_ROUTE_PATH, delivery);
          expect(posted.status).toBe(200);
          expect(posted.text).toBe(OWN_ROUTE_TEXT);
          const got = await app.send(OWN_ROUTE_PATH);
          expect(got.status).toBe(200);
          expect(got.text).toBe(OWN_ROUTE_TEXT);
          expect(fixture.events.length, 'the webhook handled none of them').toBe(0);
        });
      },
    },
    {
      name: 'the middleware carries its receiver and .on() registers handlers, chainable',
      async run() {
        const fixture = createFixture({ registerLater: true });
        await withApp(target, { mount }, fixture, async (app) => {
          expect(app.webhook.receiver).toBe(fixture.receiver);
          const chained = app.webhook.on('verification.completed', fixture.handler);
          expect(chained, '.on() returns the middleware').toBe(app.webhook);
          const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
          assertAccepted(await app.post(delivery));
          expect(fixture.events.length).toBe(1);
        });
      },
    },
  ];
}
