import { deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import {
  buildRequest,
  type RawHeader,
  type RequestParts,
  SECRET,
  signHex,
  split,
} from './http-request.js';
import {
  BREAKING_VALUES,
  deepArrays,
  deepObjects,
  jsonStyle,
  type Payload,
  paddedTo,
  REQUIRED_FIELDS,
  serialize,
  validPayload,
  withDeepMember,
  withProtoKey,
} from './payloads.js';
import type { Send } from './raw-client.js';

/**
 * What a request may come back as: `200`, `401:signature_invalid` (status and error code),
 * `node-400` (Node's parser refused it), `closed`, `reset` or `aborted`.
 */
export type Allowed = readonly string[];

export interface Step {
  send: Send;
  allowed: Allowed;
}

/** One fuzz case: one or more requests, and what must come of them. */
export interface FuzzCase {
  category: string;
  note: string;
  /** The external_user_id of a signed payload in this case, unique to it. */
  uid: string;
  /**
   * Whether the handler must receive `uid`: always, never, or exactly when a step was
   * accepted (`200`/`202`) — for requests whose fate the design leaves to the platform.
   */
  handled: 'yes' | 'no' | 'if-accepted';
  steps: Step[];
}

/** Builds a case for the n-th request of a run (the uid depends on n only). */
export type CaseBuilder = (n: number) => FuzzCase;

const ACCEPTED: Allowed = ['200:received', '202:received'];
const SIG = 'X-Webhook-Signature';
const MAX_BODY = 256 * 1024;

const json: RawHeader = ['Content-Type', 'application/json'];

function signedHeaders(body: Uint8Array, extra: readonly RawHeader[] = []): RawHeader[] {
  return [json, [SIG, signHex(body)], ...extra];
}

/** The whole request in one write, or cut in a few pieces written back to back. */
const pieces = fc.oneof(
  { weight: 3, arbitrary: fc.constant(1) },
  { weight: 1, arbitrary: fc.integer({ min: 2, max: 6 }) },
);

function oneRequest(
  parts: RequestParts,
  count: number,
  allowed: Allowed,
  end: Send['end'] = 'wait',
): Step {
  return { send: { pieces: split(buildRequest(parts), count), end }, allowed };
}

/** A well-formed junk header: a name no adapter reads, a visible-ASCII value. */
const junkHeader: fc.Arbitrary<RawHeader> = fc.tuple(
  fc.stringMatching(/^[A-Za-z0-9-]{1,24}$/).map((name) => `X-Fz-${name}`),
  fc.stringMatching(/^[!-~]([ -~]{0,200}[!-~])?$/),
);

const uidOf = (n: number) => `fz-${n}`;

// ---- valid, correctly signed deliveries: each must reach the handler exactly once ----------

const valid: fc.Arbitrary<CaseBuilder> = fc
  .record({
    style: jsonStyle,
    form: fc.constantFrom(
      'plain',
      'proto-key',
      'uppercase-signature',
      'chunked',
      'http-1.0',
      'expect-continue',
      'query-string',
      'lowercase-header-name',
    ),
    pieces,
    chunkSizes: fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 5 }),
  })
  .map(({ style, form, pieces: count, chunkSizes }) => (n: number): FuzzCase => {
    const uid = uidOf(n);
    // The payload's random fields come from a fixed sample per n: same n, same bytes.
    const payload = fc.sample(validPayload(uid), { seed: n, numRuns: 1 })[0] as Payload;
    const body = form === 'proto-key' ? withProtoKey(payload) : serialize(payload, style);
    const signature = signHex(body);
    const headers: RawHeader[] = [
      json,
      [
        form === 'lowercase-header-name' ? 'x-webhook-signature' : SIG,
        form === 'uppercase-signature' ? signature.toUpperCase() : signature,
      ],
    ];
    if (form === 'expect-continue') headers.push(['Expect', '100-continue']);
    const parts: RequestParts = {
      headers,
      body,
      ...(form === 'chunked' ? { length: 'chunked', chunkSizes } : {}),
      ...(form === 'http-1.0' ? { version: 'HTTP/1.0' } : {}),
      ...(form === 'query-string' ? { target: '/webhooks/verification?attempt=1&x=%00' } : {}),
    };
    return {
      category: 'valid',
      note: `${form}, ${style} JSON, ${count} piece(s)`,
      uid,
      handled: 'yes',
      steps: [oneRequest(parts, count, ACCEPTED)],
    };
  });

/** A valid payload for n, as bytes in a random style. */
function validBody(n: number, style: Parameters<typeof serialize>[1] = 'compact'): Uint8Array {
  const payload = fc.sample(validPayload(uidOf(n)), { seed: n, numRuns: 1 })[0] as Payload;
  return serialize(payload, style);
}

function validPayloadOf(n: number): Payload {
  return fc.sample(validPayload(uidOf(n)), { seed: n, numRuns: 1 })[0] as Payload;
}

const trickled: fc.Arbitrary<CaseBuilder> = fc
  .record({
    count: fc.integer({ min: 3, max: 40 }),
    delays: fc.array(fc.integer({ min: 0, max: 15 }), { minLength: 1, maxLength: 6 }),
  })
  .map(({ count, delays }) => (n: number): FuzzCase => {
    const body = validBody(n);
    const request = buildRequest({ headers: signedHeaders(body), body });
    return {
      category: 'slow-body',
      note: `valid delivery trickled in ${count} pieces, delays ${delays.join('/')} ms`,
      uid: uidOf(n),
      handled: 'yes',
      steps: [
        {
          send: { pieces: split(request, count), delaysMs: delays, end: 'wait' },
          allowed: ACCEPTED,
        },
      ],
    };
  });

const junkHeaders: fc.Arbitrary<CaseBuilder> = fc
  .record({
    headers: fc.array(junkHeader, { minLength: 1, maxLength: 40 }),
    big: fc.option(fc.integer({ min: 1000, max: 12_000 }), { nil: undefined }),
    pieces,
  })
  .map(({ headers, big, pieces: count }) => (n: number): FuzzCase => {
    const body = validBody(n);
    const extra =
      big === undefined ? headers : [...headers, ['X-Fz-Big', 'b'.repeat(big)] as RawHeader];
    return {
      category: 'junk-headers',
      note: `valid delivery with ${extra.length} junk header(s)${big ? `, one of ${big} bytes` : ''}`,
      uid: uidOf(n),
      handled: 'yes',
      steps: [oneRequest({ headers: signedHeaders(body, extra), body }, count, ACCEPTED)],
    };
  });

const contentTypes: fc.Arbitrary<CaseBuilder> = fc
  .constantFrom(
    null,
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=zz',
    'application/json; charset=utf-16',
    'application/json; charset=iso-8859-1',
    'application/json; charset="weird"',
    'application/octet-stream',
    '*/*',
    'application/json, text/plain',
  )
  .map((type) => (n: number): FuzzCase => {
    const body = validBody(n);
    const headers: RawHeader[] = [[SIG, signHex(body)]];
    if (type !== null) headers.push(['Content-Type', type]);
    return {
      category: 'content-type',
      note: `valid delivery with Content-Type ${type ?? '(none)'}`,
      uid: uidOf(n),
      handled: 'yes',
      steps: [oneRequest({ headers, body }, 1, ACCEPTED)],
    };
  });

const replay: fc.Arbitrary<CaseBuilder> = fc.constant((n: number): FuzzCase => {
  const body = validBody(n);
  const request = buildRequest({ headers: signedHeaders(body), body });
  return {
    category: 'replay',
    note: 'the same valid delivery twice in a row',
    uid: uidOf(n),
    handled: 'yes',
    steps: [
      { send: { pieces: [request], end: 'wait' }, allowed: ACCEPTED },
      { send: { pieces: [request], end: 'wait' }, allowed: ['200:received'] },
    ],
  };
});

const atLimit: fc.Arbitrary<CaseBuilder> = fc
  .constantFrom(MAX_BODY, MAX_BODY - 1)
  .map((size) => (n: number): FuzzCase => {
    const body = paddedTo(validPayloadOf(n), size);
    return {
      category: 'size-limit',
      note: `valid delivery of ${size} bytes (the limit is ${MAX_BODY})`,
      uid: uidOf(n),
      handled: 'yes',
      steps: [oneRequest({ headers: signedHeaders(body), body }, 4, ACCEPTED)],
    };
  });

// ---- signatures that must be refused ------------------------------------------------------

const badSignature: fc.Arbitrary<CaseBuilder> = fc
  .record({
    kind: fc.constantFrom(
      'random-hex',
      'other-secret',
      'prefixed',
      'truncated',
      'extended',
      'non-hex',
      'inner-space',
      'huge',
      'base64',
      'random-text',
      'other-body',
    ),
    random: fc.uint8Array({ minLength: 32, maxLength: 32 }),
    cut: fc.integer({ min: 1, max: 63 }),
    text: fc.stringMatching(/^[!-~]{1,100}$/),
  })
  .map(({ kind, random, cut, text }) => (n: number): FuzzCase => {
    const body = validBody(n);
    const good = signHex(body);
    const signature = {
      'random-hex': Buffer.from(random).toString('hex'),
      'other-secret': signHex(body, `${SECRET}-old`),
      prefixed: `sha256=${good}`,
      truncated: good.slice(0, cut),
      extended: `${good}0`,
      'non-hex': `${good.slice(0, cut)}g${good.slice(cut + 1)}`,
      'inner-space': `${good.slice(0, 32)} ${good.slice(32)}`,
      huge: 'a'.repeat(8000),
      base64: Buffer.from(good, 'hex').toString('base64'),
      'random-text': text,
      'other-body': signHex(Buffer.concat([body, Buffer.from(' ')])),
    }[kind];
    return {
      category: 'bad-signature',
      note: kind,
      uid: uidOf(n),
      handled: 'no',
      steps: [
        oneRequest({ headers: [json, [SIG, signature]], body }, 1, ['401:signature_invalid']),
      ],
    };
  });

const missingSignature: fc.Arbitrary<CaseBuilder> = fc
  .constantFrom('absent', 'empty', 'blank', 'other-name')
  .map((kind) => (n: number): FuzzCase => {
    const body = validBody(n);
    const headers: RawHeader[] = [json];
    if (kind === 'empty') headers.push([SIG, '']);
    if (kind === 'blank') headers.push([SIG, '   ']);
    if (kind === 'other-name') headers.push(['X-Hub-Signature-256', `sha256=${signHex(body)}`]);
    return {
      category: 'missing-signature',
      note: kind,
      uid: uidOf(n),
      handled: 'no',
      steps: [oneRequest({ headers, body }, 1, ['401:signature_missing'])],
    };
  });

const duplicateSignature: fc.Arbitrary<CaseBuilder> = fc
  .tuple(fc.constantFrom('good', 'wrong', 'empty'), fc.constantFrom('good', 'wrong', 'empty'))
  .map(([first, second]) => (n: number): FuzzCase => {
    const body = validBody(n);
    const value = (kind: string) =>
      kind === 'good' ? signHex(body) : kind === 'wrong' ? 'ab'.repeat(32) : '';
    return {
      category: 'duplicate-signature',
      note: `two X-Webhook-Signature headers: ${first}, ${second}`,
      uid: uidOf(n),
      handled: 'no',
      steps: [
        oneRequest(
          { headers: [json, [SIG, value(first)], ['x-webhook-signature', value(second)]], body },
          1,
          ['401:signature_invalid', '401:signature_missing'],
        ),
      ],
    };
  });

const tampered: fc.Arbitrary<CaseBuilder> = fc
  .record({ at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) })
  .map(({ at, bit }) => (n: number): FuzzCase => {
    const body = Buffer.from(validBody(n));
    const signature = signHex(body);
    const index = at % body.length;
    body[index] = (body[index] as number) ^ (1 << bit);
    return {
      category: 'tampered-body',
      note: `bit ${bit} of byte ${index} flipped after signing`,
      uid: uidOf(n),
      handled: 'no',
      steps: [
        oneRequest({ headers: [json, [SIG, signature]], body }, 1, ['401:signature_invalid']),
      ],
    };
  });

// ---- correctly signed bodies that are not valid payloads ----------------------------------

const randomBytes: fc.Arbitrary<CaseBuilder> = fc
  .record({ body: fc.uint8Array({ maxLength: 4096 }), signed: fc.boolean() })
  .map(
    ({ body, signed }) =>
      (n: number): FuzzCase => ({
        category: 'random-bytes',
        note: `${body.length} random bytes, ${signed ? 'correctly signed' : 'wrong signature'}`,
        uid: uidOf(n),
        handled: 'no',
        steps: [
          oneRequest(
            { headers: [json, [SIG, signed ? signHex(body) : 'cd'.repeat(32)]], body },
            1,
            [signed ? '400:payload_invalid' : '401:signature_invalid'],
          ),
        ],
      }),
  );

const invalidPayload: fc.Arbitrary<CaseBuilder> = fc.oneof(
  fc
    .record({
      field: fc.constantFrom(...REQUIRED_FIELDS),
      pick: fc.nat(),
    })
    .map(({ field, pick }) => (n: number): FuzzCase => {
      const payload = { ...validPayloadOf(n) };
      const values = BREAKING_VALUES[field];
      const value = values[pick % values.length];
      if (value === undefined) delete payload[field];
      else payload[field] = value;
      const body = serialize(payload, 'compact');
      return {
        category: 'invalid-payload',
        note: `field ${field} = ${JSON.stringify(value) ?? '(missing)'}`,
        uid: uidOf(n),
        handled: 'no',
        steps: [oneRequest({ headers: signedHeaders(body), body }, 1, ['400:payload_invalid'])],
      };
    }),
  fc.jsonValue({ maxDepth: 4 }).map((value) => (n: number): FuzzCase => {
    const body = Buffer.from(JSON.stringify(value) ?? 'null');
    // Documented: a correctly signed object whose `event` is another string is acknowledged.
    const event =
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? (value as Payload).event
        : undefined;
    const ignored = typeof event === 'string' && event !== 'verification.completed';
    return {
      category: 'invalid-payload',
      note: `random JSON value (${Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value})`,
      uid: uidOf(n),
      handled: 'no',
      steps: [
        oneRequest(
          { headers: signedHeaders(body), body },
          1,
          ignored ? ['200:received'] : ['400:payload_invalid'],
        ),
      ],
    };
  }),
);

const unknownEvent: fc.Arbitrary<CaseBuilder> = fc
  .oneof(
    fc.constantFrom(
      'verification.started',
      '',
      'VERIFICATION.COMPLETED',
      'verification.completed ',
    ),
    fc.string({ maxLength: 30 }),
  )
  .filter((event) => event !== 'verification.completed')
  .map((event) => (n: number): FuzzCase => {
    const body = serialize({ ...validPayloadOf(n), event }, 'compact');
    return {
      category: 'unknown-event',
      note: `event ${JSON.stringify(event)}`,
      uid: uidOf(n),
      handled: 'no',
      steps: [oneRequest({ headers: signedHeaders(body), body }, 1, ['200:received'])],
    };
  });

const deepJson: fc.Arbitrary<CaseBuilder> = fc
  .record({
    shape: fc.constantFrom('arrays', 'objects', 'member'),
    depth: fc.constantFrom(1000, 10_000, 40_000, 100_000),
  })
  .map(({ shape, depth }) => (n: number): FuzzCase => {
    const body =
      shape === 'arrays'
        ? deepArrays(depth)
        : shape === 'objects'
          ? deepObjects(Math.min(depth, 40_000))
          : withDeepMember(validPayloadOf(n), Math.min(depth, 100_000));
    // A deep extra member inside a valid payload may parse (then it is valid) or exhaust the
    // parser (then it is invalid): both are fine, as long as nothing crashes.
    const member = shape === 'member';
    return {
      category: 'deep-json',
      note: `${shape} nested ${depth} deep, ${body.length} bytes, correctly signed`,
      uid: uidOf(n),
      handled: member ? 'if-accepted' : 'no',
      steps: [
        oneRequest(
          { headers: signedHeaders(body), body },
          2,
          member ? [...ACCEPTED, '400:payload_invalid'] : ['400:payload_invalid'],
        ),
      ],
    };
  });

const contentEncoding: fc.Arbitrary<CaseBuilder> = fc
  .record({
    codec: fc.constantFrom('gzip', 'deflate'),
    signed: fc.constantFrom('compressed', 'plain'),
    declared: fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'GZIP'),
    compress: fc.boolean(),
  })
  .map(({ codec, signed, declared, compress }) => (n: number): FuzzCase => {
    const plain = validBody(n);
    const sent = compress ? (codec === 'gzip' ? gzipSync(plain) : deflateSync(plain)) : plain;
    const signature = signHex(signed === 'plain' ? plain : sent);
    const headers: RawHeader[] = [json, [SIG, signature], ['Content-Encoding', declared]];
    let allowed: Allowed;
    let handled: FuzzCase['handled'];
    if (!compress) {
      // The bytes sent are the signed JSON: whatever the header claims, they verify. Whether
      // an adapter accepts them or refuses the encoding is its choice.
      allowed = [
        ...ACCEPTED,
        '400:payload_invalid',
        '400:body_unreadable',
        '500:raw_body_unavailable',
      ];
      handled = 'if-accepted';
    } else if (signed === 'compressed') {
      // Signed over the compressed bytes: they verify, but are not JSON.
      allowed = ['400:payload_invalid', '400:body_unreadable', '500:raw_body_unavailable'];
      handled = 'no';
    } else {
      allowed = ['401:signature_invalid', '400:body_unreadable', '500:raw_body_unavailable'];
      handled = 'no';
    }
    return {
      category: 'content-encoding',
      note: `${compress ? codec : 'uncompressed'} body, Content-Encoding ${declared}, signed over ${signed === 'plain' || !compress ? 'the JSON' : 'the compressed bytes'}`,
      uid: uidOf(n),
      handled,
      steps: [oneRequest({ headers, body: sent }, 1, allowed)],
    };
  });

// ---- sizes and lengths --------------------------------------------------------------------

const hugeBody: fc.Arbitrary<CaseBuilder> = fc
  .record({ size: fc.integer({ min: MAX_BODY + 1, max: 2 * 1024 * 1024 }), chunked: fc.boolean() })
  .map(({ size, chunked }) => (n: number): FuzzCase => {
    const body = paddedTo(validPayloadOf(n), size);
    const request = buildRequest({
      headers: signedHeaders(body),
      body,
      ...(chunked ? { length: 'chunked', chunkSizes: [16_384] } : {}),
    });
    return {
      category: 'huge-body',
      note: `${size} bytes, ${chunked ? 'chunked' : 'with Content-Length'}`,
      uid: uidOf(n),
      handled: 'no',
      // The server may close while the rest is still being written: a reset is fine.
      steps: [
        {
          send: { pieces: split(request, Math.ceil(request.length / 65_536)), end: 'wait' },
          allowed: ['413:payload_too_large', 'reset'],
        },
      ],
    };
  });

const hugeContentLength: fc.Arbitrary<CaseBuilder> = fc
  .constantFrom(
    '262145',
    '1000000',
    '1099511627776',
    '9007199254740993',
    '18446744073709551615',
    '99999999999999999999999',
  )
  .map((length) => (n: number): FuzzCase => {
    const body = validBody(n);
    const overflow = BigInt(length) > 18446744073709551615n;
    return {
      category: 'huge-content-length',
      note: `Content-Length ${length}, ${body.length} bytes sent`,
      uid: uidOf(n),
      handled: 'no',
      steps: [
        oneRequest(
          { headers: signedHeaders(body), body, length },
          1,
          overflow ? ['node-400'] : ['413:payload_too_large', 'node-400'],
        ),
      ],
    };
  });

const badContentLength: fc.Arbitrary<CaseBuilder> = fc
  .constantFrom(
    'abc',
    '-1',
    '1.5',
    '0x10',
    '12 34',
    'with-transfer-encoding',
    'two-different',
    'te-not-chunked',
  )
  .map((kind) => (n: number): FuzzCase => {
    const body = validBody(n);
    const headers = signedHeaders(body);
    let parts: RequestParts;
    if (kind === 'with-transfer-encoding') {
      parts = {
        headers: [...headers, ['Content-Length', String(body.length)]],
        body,
        length: 'chunked',
      };
    } else if (kind === 'two-different') {
      parts = {
        headers: [...headers, ['Content-Length', String(body.length)], ['Content-Length', '5']],
        body,
        length: 'none',
      };
    } else if (kind === 'te-not-chunked') {
      parts = { headers: [...headers, ['Transfer-Encoding', 'gzip']], body, length: 'none' };
    } else {
      parts = { headers, body, length: kind };
    }
    return {
      category: 'bad-content-length',
      note: kind,
      uid: uidOf(n),
      handled: 'no',
      steps: [oneRequest(parts, 1, ['node-400', 'closed', 'reset'])],
    };
  });

const truncated: fc.Arbitrary<CaseBuilder> = fc
  .record({
    how: fc.constantFrom(
      'short-body-destroy',
      'short-body-half-close',
      'mid-headers-destroy',
      'chunked-unfinished-destroy',
      'chunked-unfinished-half-close',
    ),
    missing: fc.integer({ min: 1, max: 1500 }),
  })
  .map(({ how, missing }) => (n: number): FuzzCase => {
    const body = validBody(n, 'pretty');
    const headers = signedHeaders(body);
    const cut = Math.max(0, body.length - missing);
    let bytes: Uint8Array;
    if (how.startsWith('chunked')) {
      const full = buildRequest({ headers, body, length: 'chunked', chunkSizes: [256] });
      bytes = full.subarray(0, full.length - 5 - Math.min(missing, 200));
    } else if (how === 'mid-headers-destroy') {
      const full = buildRequest({ headers, body });
      bytes = full.subarray(0, Math.min(missing, full.indexOf(13)) + 10);
    } else {
      // Content-Length says the whole body; fewer bytes come.
      bytes = buildRequest({ headers, body: body.subarray(0, cut), length: String(body.length) });
    }
    const end: Send['end'] = how.endsWith('half-close') ? 'half-close' : 'destroy';
    return {
      category: 'truncated',
      note: `${how}, ${missing} bytes missing`,
      uid: uidOf(n),
      handled: 'no',
      steps: [
        {
          send: { pieces: [bytes], end },
          allowed:
            end === 'destroy'
              ? ['aborted']
              : ['400:body_unreadable', 'closed', 'reset', 'node-400'],
        },
      ],
    };
  });

// ---- methods, headers and malformed HTTP --------------------------------------------------

const methods: fc.Arbitrary<CaseBuilder> = fc
  .record({
    method: fc.constantFrom(
      'GET',
      'PUT',
      'DELETE',
      'PATCH',
      'OPTIONS',
      'HEAD',
      'PROPFIND',
      'PURGE',
      'SEARCH',
      'MKCOL',
      'LOCK',
    ),
    withBody: fc.boolean(),
  })
  .map(({ method, withBody }) => (n: number): FuzzCase => {
    const body = validBody(n);
    const parts: RequestParts = withBody
      ? { method, headers: signedHeaders(body), body }
      : { method, headers: signedHeaders(body) };
    return {
      category: 'method',
      note: `${method}${withBody ? ' with a signed body' : ''}`,
      uid: uidOf(n),
      handled: 'no',
      steps: [oneRequest(parts, 1, [method === 'HEAD' ? '405' : '405:method_not_allowed'])],
    };
  });

const badMethod: fc.Arbitrary<CaseBuilder> = fc
  .oneof(
    fc.constantFrom('post', 'P0ST', 'FOO', 'GETT', 'POST\t', 'CONNECT'),
    fc.stringMatching(/^[A-Z]{1,12}$/),
  )
  .filter(
    (method) =>
      ![
        'POST',
        'GET',
        'PUT',
        'DELETE',
        'PATCH',
        'OPTIONS',
        'HEAD',
        'TRACE',
        'COPY',
        'LOCK',
        'MKCOL',
        'MOVE',
        'PROPFIND',
        'PROPPATCH',
        'SEARCH',
        'UNLOCK',
        'BIND',
        'REBIND',
        'UNBIND',
        'ACL',
        'REPORT',
        'MKACTIVITY',
        'CHECKOUT',
        'MERGE',
        'NOTIFY',
        'SUBSCRIBE',
        'UNSUBSCRIBE',
        'PURGE',
        'MKCALENDAR',
        'LINK',
        'UNLINK',
        'SOURCE',
        'QUERY',
        'PRI',
        'DESCRIBE',
        'ANNOUNCE',
        'SETUP',
        'PLAY',
        'PAUSE',
        'TEARDOWN',
        'RECORD',
        'REDIRECT',
        'FLUSH',
      ].includes(method),
  )
  .map((method) => (n: number): FuzzCase => {
    const body = validBody(n);
    return {
      category: 'invalid-method',
      note: JSON.stringify(method),
      uid: uidOf(n),
      handled: 'no',
      steps: [
        oneRequest(
          { method, headers: signedHeaders(body), body },
          1,
          ['node-400', 'closed', 'reset'],
          'half-close',
        ),
      ],
    };
  });

const hugeHeaders: fc.Arbitrary<CaseBuilder> = fc
  .record({
    kind: fc.constantFrom('one-big', 'many'),
    size: fc.integer({ min: 17 * 1024, max: 200 * 1024 }),
  })
  .map(({ kind, size }) => (n: number): FuzzCase => {
    const body = validBody(n);
    const extra: RawHeader[] =
      kind === 'one-big'
        ? [['X-Fz-Huge', 'h'.repeat(size)]]
        : Array.from(
            { length: Math.ceil(size / 40) },
            (_, i) => [`X-Fz-${i}`, 'v'.repeat(30)] as RawHeader,
          );
    const request = buildRequest({ headers: signedHeaders(body, extra), body });
    return {
      category: 'huge-headers',
      note: `${kind === 'one-big' ? 'one header' : `${extra.length} headers`} totalling about ${size} bytes`,
      uid: uidOf(n),
      handled: 'no',
      steps: [
        {
          send: { pieces: split(request, Math.ceil(request.length / 65_536)), end: 'wait' },
          allowed: ['node-431', 'node-400', 'reset'],
        },
      ],
    };
  });

const malformedHeaders: fc.Arbitrary<CaseBuilder> = fc
  .constantFrom(
    'nul-in-value',
    'no-colon',
    'space-in-name',
    'obs-fold',
    'bare-cr',
    'bare-lf',
    'non-token-name',
    'empty-name',
    'del-in-value',
  )
  .map((kind) => (n: number): FuzzCase => {
    const body = validBody(n);
    const signature = signHex(body);
    const bad = {
      'nul-in-value': 'X-Fz-Bad: a\u0000b',
      'no-colon': 'X-Fz-Bad',
      'space-in-name': 'X Fz Bad: 1',
      'obs-fold': 'X-Fz-Bad: a\r\n folded',
      'bare-cr': 'X-Fz-Bad: a\rb',
      'bare-lf': 'X-Fz-Bad: a\nX-Fz-Other: b',
      'non-token-name': 'X-(Fz): 1',
      'empty-name': ': value',
      'del-in-value': 'X-Fz-Bad: a\u007fb',
    }[kind];
    const head =
      `POST /webhooks/verification HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n` +
      `Content-Type: application/json\r\n${SIG}: ${signature}\r\n${bad}\r\nContent-Length: ${body.length}\r\n\r\n`;
    return {
      category: 'malformed-headers',
      note: kind,
      uid: uidOf(n),
      // Node refuses most of these; if it tolerates one, the request is a valid delivery.
      handled: 'if-accepted',
      steps: [
        {
          send: { pieces: [Buffer.concat([Buffer.from(head, 'latin1'), body])], end: 'wait' },
          allowed: ['node-400', 'closed', 'reset', ...ACCEPTED],
        },
      ],
    };
  });

const garbage: fc.Arbitrary<CaseBuilder> = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 2048 }).map(
    (bytes) =>
      (n: number): FuzzCase => ({
        category: 'garbage',
        note: `${bytes.length} random bytes as the request`,
        uid: uidOf(n),
        handled: 'no',
        steps: [
          {
            send: { pieces: [bytes], end: 'half-close' },
            allowed: ['node-400', 'closed', 'reset'],
          },
        ],
      }),
  ),
  fc
    .constantFrom(
      'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
      'POST /webhooks/verification\r\n\r\n',
      'POST /webhooks/verification HTTP/1.2\r\nHost: x\r\n\r\n',
      'POST /webhooks/verification HTTP/2.0\r\nHost: x\r\n\r\n',
      'POST /webhooks/verification HTTP/1.1\r\n\r\n',
      'POST  /webhooks/verification  HTTP/1.1\r\nHost: x\r\n\r\n',
      'POST /webhooks/verification HTTP/1.1\nHost: x\n\n',
      '\r\n\r\n\r\n',
    )
    .map(
      (text) =>
        (n: number): FuzzCase => ({
          category: 'garbage',
          note: JSON.stringify(text.slice(0, 48)),
          uid: uidOf(n),
          handled: 'no',
          // Some of these are HTTP that Node accepts (a request line without a version, bare
          // LF): they reach the adapter with no body and no signature and must be refused by it.
          // @hono/node-server answers a request without a Host header itself: 400, text/plain.
          steps: [
            {
              send: { pieces: [Buffer.from(text, 'latin1')], end: 'half-close' },
              allowed: [
                'node-400',
                'node-505',
                'closed',
                'reset',
                '401:signature_missing',
                '400:body_unreadable',
                'other-400',
              ],
            },
          ],
        }),
    ),
);

/**
 * A request-target Node passes on but URL parsers refuse (an unclosed IPv6 literal, a space
 * in the host). An unclosed literal with an address in it (`[::1`) is left out: Node's legacy
 * `url.parse`, which Express calls, prints a DEP0170 warning for it on every run. Each
 * framework answers it in its own way before any webhook logic runs: Express routes it
 * nowhere (404, HTML), Koa throws from `ctx.path` (500, text), @hono/node-server refuses it
 * (400, text). None reaches a handler; the report shows which answer each one gave.
 */
const unparsableTarget: fc.Arbitrary<CaseBuilder> = fc
  .constantFrom('http://[/webhooks/verification', 'http://a b/webhooks/verification')
  .map((target) => (n: number): FuzzCase => {
    const body = validBody(n);
    return {
      category: 'unparsable-target',
      note: target,
      uid: uidOf(n),
      // A framework that does parse it routes it to the webhook: then it is a valid delivery.
      handled: 'if-accepted',
      steps: [
        oneRequest({ target, headers: signedHeaders(body), body }, 1, [
          'node-400',
          'other-400',
          'other-404',
          'other-500',
          ...ACCEPTED,
        ]),
      ],
    };
  });

/** Every category with its weight in a run. */
export const CATEGORIES: ReadonlyArray<{ weight: number; arbitrary: fc.Arbitrary<CaseBuilder> }> = [
  { weight: 14, arbitrary: valid },
  { weight: 4, arbitrary: trickled },
  { weight: 4, arbitrary: junkHeaders },
  { weight: 3, arbitrary: contentTypes },
  { weight: 3, arbitrary: replay },
  { weight: 1, arbitrary: atLimit },
  { weight: 8, arbitrary: badSignature },
  { weight: 3, arbitrary: missingSignature },
  { weight: 3, arbitrary: duplicateSignature },
  { weight: 3, arbitrary: tampered },
  { weight: 5, arbitrary: randomBytes },
  { weight: 6, arbitrary: invalidPayload },
  { weight: 2, arbitrary: unknownEvent },
  { weight: 2, arbitrary: deepJson },
  { weight: 3, arbitrary: contentEncoding },
  { weight: 2, arbitrary: hugeBody },
  { weight: 2, arbitrary: hugeContentLength },
  { weight: 3, arbitrary: badContentLength },
  { weight: 5, arbitrary: truncated },
  { weight: 5, arbitrary: methods },
  { weight: 3, arbitrary: badMethod },
  { weight: 2, arbitrary: hugeHeaders },
  { weight: 3, arbitrary: malformedHeaders },
  { weight: 3, arbitrary: garbage },
  { weight: 1, arbitrary: unparsableTarget },
];

export const fuzzCase: fc.Arbitrary<CaseBuilder> = fc.oneof(...CATEGORIES);

/**
 * The cases of a run: `count` builders drawn from `seed`. The same seed gives the same
 * cases, so a failure is replayed with `--seed` (and `--only` for one case).
 */
export function drawCases(seed: number, count: number): CaseBuilder[] {
  return fc.sample(fuzzCase, { seed, numRuns: count });
}
