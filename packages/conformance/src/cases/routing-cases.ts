import assert from 'node:assert/strict';
import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
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
            assert.equal(answer.headers.get('allow'), 'POST');
          }
          assert.equal(fixture.events.length, 0);
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
          assert.equal(answer.status, 404, 'the app found no route there');
          assert.equal(fixture.events.length, 0);
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
            assert.equal(app.webhookPath, CUSTOM_PATH);
            const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
            const atDefault = await app.postTo(DEFAULT_WEBHOOK_PATH, delivery);
            assert.equal(atDefault.status, 404, 'nothing listens on the default path');
            assertAccepted(await app.post(delivery));
            assert.equal(fixture.events.length, 1);
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
                assert.equal(app.webhookPath, ROUTE_PATH);
                const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
                assertAccepted(await app.post(delivery));
                assert.equal(fixture.events.length, 1);
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
          assert.equal(posted.status, 200);
          assert.equal(posted.text, OWN_ROUTE_TEXT);
          const got = await app.send(OWN_ROUTE_PATH);
          assert.equal(got.status, 200);
          assert.equal(got.text, OWN_ROUTE_TEXT);
          assert.equal(fixture.events.length, 0, 'the webhook handled none of them');
        });
      },
    },
    {
      name: 'the middleware carries its receiver and .on() registers handlers, chainable',
      async run() {
        const fixture = createFixture({ registerLater: true });
        await withApp(target, { mount }, fixture, async (app) => {
          assert.equal(app.webhook.receiver, fixture.receiver);
          const chained = app.webhook.on('verification.completed', fixture.handler);
          assert.equal(chained, app.webhook, '.on() returns the middleware');
          const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
          assertAccepted(await app.post(delivery));
          assert.equal(fixture.events.length, 1);
        });
      },
    },
  ];
}
