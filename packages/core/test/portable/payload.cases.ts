import { parseVerificationPayload, WebhookPayloadError } from '../../src/index.js';
import { fixturePayload } from '../../src/testing/index.js';
import { check, checkEqual, checkRejects, type PortableCase } from './case.js';

const isPayloadError = (field?: string) => (error: unknown) =>
  error instanceof WebhookPayloadError &&
  error.code === 'payload_invalid' &&
  (field === undefined || error.field === field);

const text = (value: unknown) => JSON.stringify(value);

export const payloadCases: PortableCase[] = [
  {
    name: 'a valid payload parses with its wire names and types',
    run() {
      const payload = parseVerificationPayload(text(fixturePayload()));
      checkEqual(payload.external_user_id, 'user_123', 'external_user_id');
      checkEqual(payload.livenessPassed, true, 'livenessPassed');
      checkEqual(payload.reason, null, 'reason');
    },
  },
  {
    name: 'bytes parse like text, and a failed status with a reason is valid',
    run() {
      const body = new TextEncoder().encode(
        text(fixturePayload({ status: 'failed', reason: 'liveness_check_failed' })),
      );
      const payload = parseVerificationPayload(body);
      checkEqual(payload.status, 'failed', 'status');
      checkEqual(payload.reason, 'liveness_check_failed', 'reason');
    },
  },
  {
    name: 'unknown fields are kept in extra, and only there',
    run() {
      const { extra: _none, ...wire } = fixturePayload();
      const payload = parseVerificationPayload(text({ ...wire, attempts: 2, meta: { k: [1] } }));
      checkEqual(payload.extra.attempts, 2, 'extra.attempts');
      checkEqual(text(payload.extra.meta), '{"k":[1]}', 'extra.meta');
      check(!Object.hasOwn(payload, 'attempts'), 'attempts is not a top-level field');
      checkEqual(text(Object.keys(payload.extra)), '["attempts","meta"]', 'extra keys');
    },
  },
  {
    name: 'a payload without unknown fields has an empty extra',
    run() {
      const { extra: _none, ...wire } = fixturePayload();
      checkEqual(text(parseVerificationPayload(text(wire)).extra), '{}', 'extra');
    },
  },
  {
    name: 'validating a parsed payload again gives the same payload',
    run() {
      const once = parseVerificationPayload(text({ ...fixturePayload(), attempts: 2 }));
      const twice = parseVerificationPayload(text(once));
      checkEqual(text(twice), text(once), 'payload');
    },
  },
  ...(
    [
      ['status', 'approved'],
      ['status', undefined],
      ['external_user_id', 42],
      ['external_user_id', ''],
      ['confidence', '0.9'],
      ['confidence', undefined],
      ['livenessPassed', 'true'],
      ['duplicate', 0],
      ['risk', null],
      ['reason', 5],
      ['frontImageUrl', 'not a url'],
      ['frontImageUrl', 'javascript:alert(1)'],
    ] as const
  ).map(
    ([field, value]): PortableCase => ({
      name: `field ${field} = ${text(value) ?? 'missing'} is a payload error naming it`,
      async run() {
        const body: Record<string, unknown> = { ...fixturePayload() };
        if (value === undefined) delete body[field];
        else body[field] = value;
        await checkRejects(
          () => parseVerificationPayload(text(body)),
          isPayloadError(field),
          field,
        );
      },
    }),
  ),
  {
    name: 'another event value is a payload error naming event',
    async run() {
      await checkRejects(
        () =>
          parseVerificationPayload(text({ ...fixturePayload(), event: 'verification.started' })),
        isPayloadError('event'),
        'event',
      );
    },
  },
  {
    name: 'non-objects, invalid JSON and invalid UTF-8 are payload errors',
    async run() {
      for (const body of ['[]', 'null', '"x"', '{', '']) {
        await checkRejects(() => parseVerificationPayload(body), isPayloadError(), body);
      }
      const invalidUtf8 = new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
      await checkRejects(() => parseVerificationPayload(invalidUtf8), isPayloadError(), 'utf8');
    },
  },
  {
    name: '__proto__ keys cannot pollute prototypes',
    run() {
      const body = `{"__proto__":{"polluted":true},${text(fixturePayload()).slice(1)}`;
      const payload = parseVerificationPayload(body);
      check(Object.getPrototypeOf(payload) === Object.prototype, 'prototype unchanged');
      check(!Object.hasOwn(payload, '__proto__'), 'no own __proto__ key');
      const merged = { ...payload } as Record<string, unknown>;
      checkEqual(merged.polluted, undefined, 'spreading does not pollute');
      checkEqual(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype clean');
    },
  },
  {
    name: '__proto__ spelled with JSON escapes is dropped, at the top and nested',
    run() {
      const spellings = [
        String.raw`"\u005f\u005fproto__"`,
        String.raw`"__pro\u0074o__"`,
        String.raw`"\u005F\u005F\u0070\u0072\u006F\u0074\u006F\u005F\u005F"`,
      ];
      for (const key of spellings) {
        const nested = `{"profile":{"roles":[{${key}:{"isAdmin":true}}]},${key}:{"isAdmin":true},`;
        const payload = parseVerificationPayload(nested + text(fixturePayload()).slice(1));
        check(!Object.hasOwn(payload, '__proto__'), `${key}: no own __proto__ key`);
        check(!Object.hasOwn(payload.extra, '__proto__'), `${key}: none among the extra fields`);
        checkEqual(Object.getPrototypeOf(payload), Object.prototype, `${key}: plain object`);
        const merged = Object.assign({}, payload, payload.extra) as Record<string, unknown>;
        checkEqual(merged.isAdmin, undefined, `${key}: Object.assign does not pollute`);
        const role = (payload.extra.profile as { roles: Record<string, unknown>[] }).roles[0]!;
        check(!Object.hasOwn(role, '__proto__'), `${key}: nested key dropped`);
        checkEqual(Object.getPrototypeOf(role), Object.prototype, `${key}: nested plain object`);
        checkEqual({ ...role }.isAdmin, undefined, `${key}: nested spread does not pollute`);
      }
    },
  },
  {
    name: 'constructor.prototype is dropped, whatever its spelling; other constructor values stay',
    run() {
      const key = String.raw`"constructo\u0072"`;
      const body = `{${key}:{"prototype":{"isAdmin":true}},"meta":{"constructor":"kept"},${text(fixturePayload()).slice(1)}`;
      const payload = parseVerificationPayload(body);
      check(!Object.hasOwn(payload, 'constructor'), 'constructor.prototype dropped');
      check(!Object.hasOwn(payload.extra, 'constructor'), 'not kept as an extra field either');
      const meta = payload.extra.meta as Record<string, unknown>;
      checkEqual(
        Object.getOwnPropertyDescriptor(meta, 'constructor')?.value,
        'kept',
        'string kept',
      );
    },
  },
  {
    name: 'error messages say which field and what was expected',
    async run() {
      const body = { ...fixturePayload(), confidence: 'high' };
      await checkRejects(
        () => parseVerificationPayload(text(body)),
        (error) =>
          error instanceof Error &&
          /"confidence" must be a finite number, got a string/.test(error.message),
        'message',
      );
    },
  },
];
