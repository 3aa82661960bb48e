import { parseVerificationPayload } from '@faceverify/core';
import { fixturePayload, signedDelivery, tamperedDelivery } from '@faceverify/core/testing';
import { expect } from 'vitest';
import type { ConformanceCase } from '../case.js';
import { createFixture, OLD_SECRET, SECRET } from '../fixture.js';
import { assertAccepted, assertError, withApp } from '../harness.js';
import type { ConformanceTarget, MountStyle } from '../target.js';
import { type SignatureVector, signatureVectors } from '../vectors.js';

type VectorOutcome = 'accepted' | 'payload_invalid' | 'signature_missing' | 'signature_invalid';

function expectedOutcome(vector: SignatureVector): VectorOutcome {
  if (vector.expect === 'reject') {
    return vector.signature.trim() === '' ? 'signature_missing' : 'signature_invalid';
  }
  try {
    parseVerificationPayload(vector.body);
    return 'accepted';
  } catch {
    return 'payload_invalid';
  }
}

function vectorCase(target: ConformanceTarget, mount: MountStyle, vector: SignatureVector) {
  const outcome = expectedOutcome(vector);
  return {
    name: `signature vector ${vector.name} (${vector.expect}) is ${outcome}`,
    async run() {
      const fixture = createFixture({ secret: vector.secrets });
      await withApp(target, { mount }, fixture, async (app) => {
        const answer = await app.post({
          body: vector.body,
          headers: { 'content-type': 'application/json', 'x-webhook-signature': vector.signature },
        });
        if (outcome === 'accepted') {
          assertAccepted(answer);
          expect(fixture.events.length, 'the handler ran once').toBe(1);
          // The sent fields, with the ones the payload type does not name under `extra`.
          const {
            event,
            status,
            external_user_id,
            confidence,
            livenessPassed,
            duplicate,
            risk,
            reason,
            frontImageUrl,
            ...extra
          } = JSON.parse(new TextDecoder().decode(vector.body));
          const sent = {
            event,
            status,
            external_user_id,
            confidence,
            livenessPassed,
            duplicate,
            risk,
            reason,
            frontImageUrl,
            extra,
          };
          expect(fixture.events[0]?.data, 'the handler got the exact data').toStrictEqual(sent);
          expect(fixture.events[0]?.source).toBe('webhook');
        } else {
          assertError(answer, outcome === 'payload_invalid' ? 400 : 401, outcome);
          expect(fixture.events.length, 'no handler ran').toBe(0);
        }
      });
    },
  };
}

export function signatureCases(target: ConformanceTarget, mount: MountStyle): ConformanceCase[] {
  return [
    ...signatureVectors.map((vector) => vectorCase(target, mount, vector)),
    {
      name: 'a body with one byte changed after signing is 401 signature_invalid',
      async run() {
        const fixture = createFixture();
        await withApp(target, { mount }, fixture, async (app) => {
          const answer = await app.post(
            await tamperedDelivery(fixturePayload(), { secret: SECRET }),
          );
          assertError(answer, 401, 'signature_invalid');
          expect(fixture.events.length).toBe(0);
        });
      },
    },
    {
      name: 'a body signed with another secret is 401 signature_invalid',
      async run() {
        const fixture = createFixture();
        await withApp(target, { mount }, fixture, async (app) => {
          const delivery = await signedDelivery(fixturePayload(), { secret: 'whsec_not_ours_4d2' });
          assertError(await app.post(delivery), 401, 'signature_invalid');
          expect(fixture.events.length).toBe(0);
        });
      },
    },
    {
      name: 'during a rotation both the new and the old secret are accepted, and named',
      async run() {
        const fixture = createFixture({
          secret: [
            { label: 'current', secret: SECRET },
            { label: 'previous', secret: OLD_SECRET },
          ],
        });
        await withApp(target, { mount }, fixture, async (app) => {
          const byNew = fixturePayload({ external_user_id: 'user_new_secret' });
          const byOld = fixturePayload({ external_user_id: 'user_old_secret' });
          assertAccepted(await app.post(await signedDelivery(byNew, { secret: SECRET })));
          assertAccepted(await app.post(await signedDelivery(byOld, { secret: OLD_SECRET })));
          expect(
            fixture.events.map((event) => [event.data.external_user_id, event.secretLabel]),
          ).toStrictEqual([
            ['user_new_secret', 'current'],
            ['user_old_secret', 'previous'],
          ]);
        });
      },
    },
    {
      name: 'a request without X-Webhook-Signature is 401 signature_missing',
      async run() {
        const fixture = createFixture();
        await withApp(target, { mount }, fixture, async (app) => {
          const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
          const answer = await app.post({
            body: delivery.body,
            headers: { 'content-type': 'application/json' },
          });
          assertError(answer, 401, 'signature_missing');
          expect(fixture.events.length).toBe(0);
        });
      },
    },
  ];
}
