import {
  matchSignature,
  sign,
  verify,
  verifyWebhook,
  WebhookPayloadError,
  WebhookVerificationError,
} from '../../src/index.js';
import { fixturePayload } from '../../src/testing/index.js';
import vectorFile from '../fixtures/signature-vectors.json' with { type: 'json' };
import { check, checkEqual, checkRejects, type PortableCase } from './case.js';

interface Vector {
  name: string;
  body_base64: string;
  signature: string;
  secrets: string[];
  expect: 'accept' | 'reject';
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const vectors = (vectorFile as { vectors: Vector[] }).vectors;
const SECRET = 'whsec_test_3f9a1c0e5b7d4e2a';
const BODY = '{"event":"verification.completed","status":"verified"}';

export const signatureCases: PortableCase[] = [
  ...vectors.map(
    (vector): PortableCase => ({
      name: `vector ${vector.name} is ${vector.expect}ed`,
      async run() {
        const body = fromBase64(vector.body_base64);
        const accepted = await verify(body, vector.signature, vector.secrets);
        checkEqual(accepted, vector.expect === 'accept', vector.name);
      },
    }),
  ),
  {
    name: 'sign produces lowercase hex that the vectors accept',
    async run() {
      for (const vector of vectors.filter((v) => v.expect === 'accept' && v.secrets.length === 1)) {
        const signature = await sign(fromBase64(vector.body_base64), vector.secrets[0]!);
        checkEqual(signature, vector.signature.toLowerCase(), vector.name);
      }
    },
  },
  {
    name: 'a string body and its UTF-8 bytes sign alike',
    async run() {
      const text = '{"external_user_id":"ユーザー😀"}';
      checkEqual(
        await sign(text, SECRET),
        await sign(new TextEncoder().encode(text), SECRET),
        'sign',
      );
    },
  },
  {
    name: 'malformed signatures are false, never an exception',
    async run() {
      const good = await sign(BODY, SECRET);
      const bad: Array<string | null | undefined> = [
        undefined,
        null,
        '',
        ' ',
        good.slice(0, 63),
        `${good}0`,
        `${good}${good}`,
        `sha256=${good}`,
        `${good.slice(0, 62)}zz`,
        `${good.slice(0, 62)}\u00e9\u00e9`,
        good.replace(/./g, '\u0000'),
      ];
      for (const signature of bad) {
        checkEqual(await verify(BODY, signature, SECRET), false, JSON.stringify(signature));
        checkEqual(
          await verify(BODY, signature, [SECRET, 'other']),
          false,
          JSON.stringify(signature),
        );
      }
    },
  },
  {
    name: 'an empty secret never verifies anything and cannot sign',
    async run() {
      const signature = await sign(BODY, SECRET);
      checkEqual(await verify(BODY, signature, ''), false, 'empty string secret');
      checkEqual(await verify(BODY, signature, []), false, 'no secrets');
      checkEqual(await verify(BODY, signature, ['', '']), false, 'only empty secrets');
      await checkRejects(
        () => sign(BODY, ''),
        (error) => error instanceof TypeError,
        'sign',
      );
    },
  },
  {
    name: 'rotation: the matching secret is named by label and position',
    async run() {
      const signature = await sign(BODY, 'old-secret');
      const match = await matchSignature(BODY, signature, [
        { label: 'current', secret: 'new-secret' },
        { label: 'previous', secret: 'old-secret' },
      ]);
      check(match !== null, 'old secret should match');
      checkEqual(match.label, 'previous', 'label');
      checkEqual(match.index, 1, 'index');
      const unlabelled = await matchSignature(BODY, signature, ['new-secret', 'old-secret']);
      checkEqual(unlabelled?.label, 'secret#1', 'default label');
    },
  },
  {
    name: 'uppercase and surrounding whitespace in the header are tolerated',
    async run() {
      const signature = await sign(BODY, SECRET);
      checkEqual(await verify(BODY, ` ${signature.toUpperCase()} `, SECRET), true, 'upper');
    },
  },
  {
    name: 'verifyWebhook returns the payload, or throws a typed error saying which check failed',
    async run() {
      const body = JSON.stringify(fixturePayload());
      const signature = await sign(body, SECRET);
      const payload = await verifyWebhook(body, signature, SECRET);
      checkEqual(payload.external_user_id, 'user_123', 'payload');
      const code = (error: unknown) => (error as { code?: string }).code;
      await checkRejects(
        () => verifyWebhook(body, undefined, SECRET),
        (error) => error instanceof WebhookVerificationError && code(error) === 'signature_missing',
        'missing',
      );
      await checkRejects(
        () => verifyWebhook(`${body} `, signature, SECRET),
        (error) => error instanceof WebhookVerificationError && code(error) === 'signature_invalid',
        'invalid',
      );
      await checkRejects(
        async () => verifyWebhook('{}', await sign('{}', SECRET), SECRET),
        (error) => error instanceof WebhookPayloadError,
        'payload',
      );
    },
  },
];
