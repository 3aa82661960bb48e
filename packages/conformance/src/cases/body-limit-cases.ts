import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { expect } from 'vitest';
import type { ConformanceCase } from '../case.js';
import { createFixture, LIMIT, SECRET } from '../fixture.js';
import { assertAccepted, assertError, withApp } from '../harness.js';
import { postHeadOnly } from '../http/headers-only-request.js';
import { slowChunkedBody } from '../http/slow-chunked-body.js';
import type { ConformanceTarget, MountStyle } from '../target.js';

/** A signed, valid payload padded with JSON whitespace to exactly `size` bytes. */
async function deliveryOfSize(size: number) {
  const payload = fixturePayload();
  const json = JSON.stringify(payload);
  return signedDelivery(payload, {
    secret: SECRET,
    rawBody: json + ' '.repeat(size - json.length),
  });
}

export function bodyLimitCases(target: ConformanceTarget, mount: MountStyle): ConformanceCase[] {
  return [
    {
      name: 'a body of exactly maxBodyBytes is accepted',
      async run() {
        const fixture = createFixture();
        await withApp(target, { mount }, fixture, async (app) => {
          const delivery = await deliveryOfSize(LIMIT);
          expect(delivery.body.byteLength).toBe(LIMIT);
          assertAccepted(await app.post(delivery));
          expect(fixture.events.length).toBe(1);
        });
      },
    },
    {
      name: 'a body one byte over maxBodyBytes is 413 payload_too_large',
      async run() {
        const fixture = createFixture();
        await withApp(target, { mount }, fixture, async (app) => {
          assertError(await app.post(await deliveryOfSize(LIMIT + 1)), 413, 'payload_too_large');
          expect(fixture.events.length).toBe(0);
        });
      },
    },
    {
      name: 'a Content-Length over the limit is answered 413 before any body byte is sent',
      async run() {
        const fixture = createFixture();
        await withApp(target, { mount }, fixture, async (app) => {
          const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
          const answer = app.record(
            await postHeadOnly(`${app.url}${app.webhookPath}`, delivery.headers, LIMIT * 10),
          );
          assertError(answer, 413, 'payload_too_large');
          expect(fixture.events.length).toBe(0);
        });
      },
    },
    {
      name: 'a chunked body without Content-Length is cut off with 413 once it passes the limit',
      async run() {
        const fixture = createFixture();
        await withApp(target, { mount }, fixture, async (app) => {
          const body = slowChunkedBody(LIMIT * 10 + 1);
          const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
          const answer = await app.send(app.webhookPath, {
            method: 'POST',
            headers: delivery.headers,
            body: body.stream,
            duplex: 'half',
          });
          const sentWhenAnswered = body.sent();
          assertError(answer, 413, 'payload_too_large');
          expect(
            sentWhenAnswered < body.total / 2,
            `answered after ${sentWhenAnswered} of ${body.total} bytes: the server read far past the limit`,
          ).toBeTruthy();
          expect(fixture.events.length).toBe(0);
        });
      },
    },
  ];
}
