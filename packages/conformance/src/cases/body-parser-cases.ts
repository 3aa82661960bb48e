import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { expect } from 'vitest';
import type { ConformanceCase } from '../case.js';
import { createFixture, SECRET } from '../fixture.js';
import { assertAccepted, assertError, withApp } from '../harness.js';
import { chunkedBody } from '../http/slow-chunked-body.js';
import type { ConformanceTarget, MountStyle } from '../target.js';

export function bodyParserCases(target: ConformanceTarget, mount: MountStyle): ConformanceCase[] {
  return [
    {
      name: 'a body parser that ran first and kept no exact bytes: 500 raw_body_unavailable with the fix, logged once when signed',
      async run() {
        const fixture = createFixture();
        await withApp(target, { mount, bodyParser: 'parser-first' }, fixture, async (app) => {
          // Written compactly, as the service writes it: what a parser kept (its text, or its
          // JSON written out again) carries the signature, which shows the service sent it.
          const delivery = await signedDelivery(fixturePayload(), {
            secret: SECRET,
            layout: 'compact',
          });
          for (let attempt = 0; attempt < 2; attempt++) {
            // Chunked: without Content-Length no parser's text can be proven to be the bytes.
            const answer = await app.send(app.webhookPath, {
              method: 'POST',
              headers: delivery.headers,
              body: chunkedBody(delivery.body),
              duplex: 'half',
            });
            const message = assertError(answer, 500, 'raw_body_unavailable');
            expect(
              message.includes('verificationWebhook()'),
              `names the middleware: ${message}`,
            ).toBeTruthy();
            expect(
              message.includes(target.bodyParserFix),
              `says how to fix it: ${message}`,
            ).toBeTruthy();
          }
          expect(fixture.events.length, 'never verified against parsed JSON').toBe(0);
          const logged = fixture.logs.filter(
            (line) => line.level === 'error' && line.message.includes('verificationWebhook()'),
          );
          const expected = target.parserFirstKeepsNothing ? 0 : 1;
          expect(logged.length, 'the fix is logged once, when the signature holds').toBe(expected);
        });
      },
    },
    {
      name: 'a body parser that kept the exact bytes: the webhook is verified against them',
      async run() {
        const fixture = createFixture();
        await withApp(
          target,
          { mount, bodyParser: 'parser-keeping-bytes' },
          fixture,
          async (app) => {
            // Pretty-printed and multibyte: re-serialized JSON would not match the signature.
            const payload = fixturePayload({ external_user_id: 'ユーザー😀' });
            const delivery = await signedDelivery(payload, {
              secret: SECRET,
              rawBody: JSON.stringify(payload, null, 2),
            });
            assertAccepted(await app.post(delivery));
            expect(fixture.events.length).toBe(1);
            expect(fixture.events[0]?.data).toStrictEqual(payload);
          },
        );
      },
    },
  ];
}
