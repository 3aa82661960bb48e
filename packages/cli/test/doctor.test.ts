import { ApiError, ConfigurationError, createClient, createReceiver, sign } from '@faceverify/core';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookBody } from '../src/commands/trigger.js';
import { diagnoseSignature, EXIT, runCli } from '../src/index.js';
import {
  capturingIO,
  startReceiver,
  startReserializingProxy,
  type TestReceiver,
} from './support.js';

let emulator: Emulator;
let receiver: TestReceiver;
beforeAll(async () => {
  emulator = await startEmulator({ seed: 'cli-doctor' });
  // As deployed: a Receiver with an API client, which delivers no webhook it cannot match.
  receiver = await startReceiver({
    secret: emulator.signingSecret,
    client: { apiKey: emulator.apiKey, baseUrl: emulator.url },
  });
});
afterAll(async () => {
  await receiver?.close();
  await emulator?.close();
});

const envOf = (overrides: Record<string, string> = {}) => ({
  FACEVERIFY_WEBHOOK_SECRET: emulator.signingSecret,
  FACEVERIFY_API_KEY: emulator.apiKey,
  FACEVERIFY_BASE_URL: emulator.url,
  ...overrides,
});

describe('faceverify doctor: the environment', () => {
  it('passes every check against the service and a receiver, runs no handler, exits 0', async () => {
    const run = capturingIO(envOf());
    const code = await runCli(['doctor', '--callback-url', receiver.url], run.io);
    expect(code, run.all()).toBe(EXIT.ok);
    expect(run.out.slice(0, 4)).toEqual([
      '✔ FACEVERIFY_WEBHOOK_SECRET holds 1 secret',
      `✔ the service at ${emulator.url} accepted FACEVERIFY_API_KEY`,
      `✔ the receiver at ${receiver.url} answered a signed test webhook: 200 {"received":true,"untracked":true}`,
      '✔ it checks the signature over the body as sent: it accepted one that parsing and serializing again would change (spaced, escaped, 0.980)',
    ]);
    expect(receiver.delivered).toEqual([]);
    expect(run.all()).not.toContain(emulator.apiKey);
    expect(run.all()).not.toContain(emulator.signingSecret);
  });

  it('fails the API key check with the service answer, without printing the key', async () => {
    const wrongKey = 'fv_test_doctor_not_a_real_key_123456';
    const run = capturingIO(envOf({ FACEVERIFY_API_KEY: wrongKey }));
    expect(await runCli(['doctor'], run.io)).toBe(EXIT.failed);
    expect(run.out[1]).toBe(
      `✖ the service at ${emulator.url} refused FACEVERIFY_API_KEY (401): copy the API key from the service's Settings into FACEVERIFY_API_KEY (or \`client: { apiKey }\`).`,
    );
    expect(run.all()).not.toContain(wrongKey);
    expect(run.out.at(-1)).toContain('the callback URL was not checked');
  });

  // A 404 is also what a path without the service's API answers: it proves nothing alone.
  it.each([
    ['ends in /v1', '/v1', 'FACEVERIFY_BASE_URL) ends in /v1'],
    ['has a path the service does not have', '/api', 'has no GET /api/v1/sessions/'],
  ])(
    'fails a base URL that %s, with the right key or a wrong one, naming FACEVERIFY_BASE_URL',
    async (_name, suffix, problem) => {
      for (const apiKey of [emulator.apiKey, 'fv_test_doctor_not_a_real_key_123456']) {
        const run = capturingIO(
          envOf({ FACEVERIFY_BASE_URL: `${emulator.url}${suffix}`, FACEVERIFY_API_KEY: apiKey }),
        );
        expect(await runCli(['doctor'], run.io)).toBe(EXIT.failed);
        expect(run.out[1]).toMatch(/^✖ /);
        expect(run.out[1]).toContain(problem);
        expect(run.out[1]).toContain(`Set FACEVERIFY_BASE_URL`);
        expect(run.all()).not.toContain('accepted');
      }
    },
  );

  it('receiver.check() fails at startup with the message doctor prints', async () => {
    const cases = [
      { apiKey: 'fv_test_doctor_not_a_real_key_123456', baseUrl: emulator.url },
      { apiKey: emulator.apiKey, baseUrl: `${emulator.url}/api` },
    ];
    for (const client of cases) {
      const run = capturingIO(
        envOf({ FACEVERIFY_API_KEY: client.apiKey, FACEVERIFY_BASE_URL: client.baseUrl }),
      );
      await runCli(['doctor'], run.io);
      const receiver = createReceiver({ secret: emulator.signingSecret, client, logger: false });
      const error = await receiver.check().then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(run.out[1]).toBe(`✖ ${(error as ConfigurationError).message}`);
    }
    const ready = createReceiver({
      secret: emulator.signingSecret,
      client: { apiKey: emulator.apiKey, baseUrl: emulator.url },
      logger: false,
    });
    await expect(ready.check()).resolves.toBeUndefined();
  });

  it('a 404 on a documented path says which path was requested and names FACEVERIFY_BASE_URL', async () => {
    const client = createClient({
      apiKey: emulator.apiKey,
      baseUrl: `${emulator.url}/api`,
      logger: false,
    });
    const error = await client.createSession({ externalUserId: 'u-1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toContain('the service has no /api/v1/verify');
    expect((error as ApiError).message).toContain('FACEVERIFY_BASE_URL');
  });

  it('fails the callback check when the receiver has another secret, saying which variable', async () => {
    const run = capturingIO(
      envOf({ FACEVERIFY_WEBHOOK_SECRET: 'whsec_some_other_secret_0000001' }),
    );
    expect(await runCli(['doctor', '--callback-url', receiver.url], run.io)).toBe(EXIT.failed);
    expect(run.all()).toContain('✖ the receiver at');
    expect(run.all()).toContain('401');
    expect(run.all()).toContain("signature_invalid: The receiver's FACEVERIFY_WEBHOOK_SECRET");
  });

  // Express answers a path where nothing is mounted with an 11-line HTML page: printed as it
  // came, it pushed the hint off the screen.
  it('summarizes the HTML 404 of an unmounted path in one line, then the hint', async () => {
    const run = capturingIO(envOf());
    const unmounted = receiver.url.replace('/webhooks/verification', '/webhook');
    expect(await runCli(['doctor', '--callback-url', unmounted], run.io)).toBe(EXIT.failed);
    const check = run.out.slice(run.out.findIndex((line) => line.includes('the receiver at')));
    expect(check).toEqual([
      `✖ the receiver at ${unmounted} answered a signed test webhook: 404 an HTML page: Cannot POST /webhook`,
      '  Nothing is mounted at this path: check the URL against where your app mounts the webhook middleware.',
    ]);
  });

  // An app that checks the signature over JSON.stringify(req.body), or a proxy that rewrites
  // JSON, refuses every real webhook the service sends; a compact test body survives both.
  it('fails when the body is serialized again on the way, naming the fix', async () => {
    const proxy = await startReserializingProxy(receiver.url);
    try {
      const run = capturingIO(envOf());
      expect(await runCli(['doctor', '--callback-url', proxy.url], run.io)).toBe(EXIT.failed);
      const at = run.out.findIndex((line) => line.startsWith('✖'));
      expect(run.out[at]).toContain(
        `✖ the receiver at ${proxy.url} refused a correctly signed body that parsing and serializing again would change (spaced, escaped, 0.980): 401 {"error":"signature_invalid",`,
      );
      expect(run.out[at + 1]).toContain('checks the signature over the body serialized again');
      expect(run.out[at + 1]).toContain('req.rawBody = JSON.stringify(req.body)');
      expect(run.out[at + 1]).toContain('captureRawBody');
      expect(run.all()).not.toContain(emulator.signingSecret);
    } finally {
      await proxy.close();
    }
  });

  // The receiver and doctor agreeing proves the receiver has the variable doctor reads, not
  // that it holds the secret the service signs with.
  it("with the app's own wrong secret: says what the check proved and what it did not", async () => {
    const appSecret = 'whsec_the_apps_own_mistyped_secret';
    const app = await startReceiver({ secret: appSecret });
    try {
      const run = capturingIO(envOf({ FACEVERIFY_WEBHOOK_SECRET: appSecret }));
      expect(await runCli(['doctor', '--callback-url', app.url], run.io)).toBe(EXIT.ok);
      const note = run.out.at(-1)!;
      expect(note).toMatch(/^! /);
      expect(note).toContain(
        'proved: the receiver checks signatures with secret#0 of FACEVERIFY_WEBHOOK_SECRET',
      );
      expect(note).toContain("not proved: that it is the signing secret in the service's Settings");
      expect(note).toContain('faceverify doctor --body FILE --signature HEX');
      expect(run.all()).not.toContain(appSecret);
    } finally {
      await app.close();
    }
  });

  it('names every missing variable and notes a short secret', async () => {
    const run = capturingIO({
      FACEVERIFY_WEBHOOK_SECRET: 'short,whsec_the_older_one_that_is_long',
    });
    expect(await runCli(['doctor'], run.io)).toBe(EXIT.failed);
    expect(run.out).toContain('✔ FACEVERIFY_WEBHOOK_SECRET holds 2 secrets');
    expect(run.out).toContain(
      '! secret#0 is shorter than 16 bytes: is it the whole secret from Settings?',
    );
    expect(run.out).toContain('✖ FACEVERIFY_API_KEY and FACEVERIFY_BASE_URL are not set');
    const noUrl = capturingIO({ FACEVERIFY_API_KEY: emulator.apiKey });
    expect(await runCli(['doctor'], noUrl.io)).toBe(EXIT.failed);
    expect(noUrl.out).toContain('✖ FACEVERIFY_BASE_URL is not set');
  });

  // The values come from the environment: a message naming "the apiKey option" sends the
  // reader to look for an option they never passed.
  it.each([
    [
      'an API key shaped like a JWT',
      { FACEVERIFY_API_KEY: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.c2lnbmF0dXJl' },
      '✖ The API key from FACEVERIFY_API_KEY looks like a JWT',
    ],
    [
      'an API key with a space',
      { FACEVERIFY_API_KEY: 'fv_test_two words' },
      '✖ The API key from FACEVERIFY_API_KEY contains spaces',
    ],
    [
      'a relative base URL',
      { FACEVERIFY_BASE_URL: '127.0.0.1:4010' },
      '✖ The base URL (FACEVERIFY_BASE_URL) must be an absolute http(s) URL.',
    ],
  ] as [string, Record<string, string>, string][])(
    'names the variable, not an option, for %s',
    async (_name, overrides, line) => {
      const run = capturingIO(envOf(overrides));
      expect(await runCli(['doctor'], run.io)).toBe(EXIT.failed);
      expect(run.out[1]?.startsWith(line), run.all()).toBe(true);
      expect(run.all()).not.toMatch(/apiKey option|baseUrl option/);
      expect(run.all()).not.toContain(overrides.FACEVERIFY_API_KEY ?? emulator.apiKey);
    },
  );

  it('says when the API key and the signing secret look swapped, printing neither', async () => {
    const run = capturingIO(
      envOf({
        FACEVERIFY_API_KEY: emulator.signingSecret,
        FACEVERIFY_WEBHOOK_SECRET: emulator.apiKey,
      }),
    );
    expect(emulator.apiKey).toMatch(/^fv_/);
    expect(emulator.signingSecret).toMatch(/^whsec_/);
    expect(await runCli(['doctor'], run.io)).toBe(EXIT.failed);
    expect(run.out[1]).toBe(
      '! FACEVERIFY_API_KEY starts with whsec_, as signing secrets do, and secret#0 of FACEVERIFY_WEBHOOK_SECRET starts with fv_, as API keys do: are FACEVERIFY_API_KEY and FACEVERIFY_WEBHOOK_SECRET swapped? The API key (fv_…) goes into FACEVERIFY_API_KEY, the webhook signing secret (whsec_…) into FACEVERIFY_WEBHOOK_SECRET.',
    );
    expect(run.out[2]).toMatch(/^✖ the service at .* refused FACEVERIFY_API_KEY \(401\)/);
    expect(run.all()).not.toContain(emulator.apiKey);
    expect(run.all()).not.toContain(emulator.signingSecret);

    const keyOnly = capturingIO(
      envOf({ FACEVERIFY_API_KEY: 'whsec_pasted_in_the_wrong_place_01' }),
    );
    await runCli(['doctor'], keyOnly.io);
    expect(keyOnly.out[1]).toMatch(
      /^! FACEVERIFY_API_KEY starts with whsec_, as signing secrets do: are FACEVERIFY_API_KEY and/,
    );
    const secretOnly = capturingIO(
      envOf({ FACEVERIFY_WEBHOOK_SECRET: `whsec_newer_secret_0001,${emulator.apiKey}` }),
    );
    await runCli(['doctor'], secretOnly.io);
    expect(secretOnly.out[1]).toMatch(
      /^! secret#1 of FACEVERIFY_WEBHOOK_SECRET starts with fv_, as API keys do: are/,
    );
    expect(secretOnly.all()).not.toContain(emulator.apiKey);
    // Neither looks swapped: no note.
    const right = capturingIO(envOf());
    await runCli(['doctor'], right.io);
    expect(right.all()).not.toContain('swapped');
  });
});

describe('faceverify doctor --body --signature: why a captured signature does not match', () => {
  const SECRET = 'whsec_doctor_capture_secret_42';
  const signed = webhookBody('verified', 'zoë', null);
  const encoder = new TextEncoder();

  it.each([
    ['valid', signed, 'valid'],
    ['a trailing newline added', `${signed}\n`, 'trailing-newline-added'],
    ['re-serialized with indentation', JSON.stringify(JSON.parse(signed), null, 2), 'reserialized'],
    [
      're-serialized with sorted keys',
      JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(signed)).sort())),
      'reserialized',
    ],
  ])('%s', async (_name, captured, expected) => {
    const signature = await sign(signed, SECRET);
    const diagnosis = await diagnoseSignature(encoder.encode(captured), signature, [SECRET]);
    expect(diagnosis.kind === 'body-changed' ? diagnosis.change : diagnosis.kind).toBe(expected);
  });

  it('a body decoded as Latin-1 and encoded again as UTF-8', async () => {
    const signature = await sign(signed, SECRET);
    const latin1 = String.fromCharCode(...encoder.encode(signed));
    const diagnosis = await diagnoseSignature(encoder.encode(latin1), signature, [SECRET]);
    expect(diagnosis).toMatchObject({ kind: 'body-changed', change: 'encoding-changed' });
  });

  it('the wrong secret: no change explains it', async () => {
    const signature = await sign(signed, 'whsec_the_services_real_secret_9');
    const diagnosis = await diagnoseSignature(encoder.encode(signed), signature, [SECRET]);
    expect(diagnosis).toMatchObject({ kind: 'no-match', likelyReserialized: true });
    expect(diagnosis.explanation).toContain('FACEVERIFY_WEBHOOK_SECRET');
  });

  // The service's layout is not shown: a body sent tabbed or spaced, captured after
  // JSON.parse and JSON.stringify, must not read as a wrong secret.
  it.each([
    ['tabbed', JSON.stringify(JSON.parse(signed), null, '\t')],
    ['with a space after : and ,', signed.replaceAll('":', '": ').replaceAll(',"', ', "')],
  ])('sent %s and captured re-serialized: body-changed, not the secret', async (_name, sent) => {
    const signature = await sign(sent, SECRET);
    const captured = encoder.encode(JSON.stringify(JSON.parse(sent)));
    const diagnosis = await diagnoseSignature(captured, signature, [SECRET]);
    expect(diagnosis).toMatchObject({ kind: 'body-changed', change: 'reserialized' });
  });

  it('a layout no candidate knows, captured re-serialized: says re-serialized before the secret', async () => {
    const sent = signed.replaceAll('":', '" :');
    const signature = await sign(sent, SECRET);
    const captured = encoder.encode(JSON.stringify(JSON.parse(sent)));
    const diagnosis = await diagnoseSignature(captured, signature, [SECRET]);
    expect(diagnosis).toMatchObject({ kind: 'no-match', likelyReserialized: true });
    const { explanation } = diagnosis as { explanation: string };
    expect(explanation).toMatch(/^The body is exactly what JSON.stringify writes/);
    expect(explanation).toContain('Capture the raw bytes');
    expect(explanation.indexOf('raw bytes')).toBeLessThan(
      explanation.indexOf('FACEVERIFY_WEBHOOK_SECRET'),
    );
  });

  it('takes linear time on a body of many newlines followed by one byte', async () => {
    // The regex /(\r?\n)+$/ took 12.7 s on this body; the whole diagnosis now takes milliseconds.
    const body = encoder.encode(`${'\n'.repeat(80_000)}x`);
    const started = performance.now();
    const diagnosis = await diagnoseSignature(body, await sign('{}', SECRET), [SECRET]);
    expect(diagnosis.kind).toBe('no-match');
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  // String.fromCharCode(...bytes) passed each byte as an argument: a body of about 125 KB
  // overflowed the stack. A receiver accepts bodies up to 256 KiB by default.
  it('from the command line: diagnoses 256 KiB bodies, UTF-8 and Latin-1, without a stack overflow', async () => {
    const large = JSON.stringify({ ...JSON.parse(signed), note: 'é'.repeat(128 * 1024) });
    expect(encoder.encode(large).length).toBeGreaterThanOrEqual(256 * 1024);
    const signature = await sign(large, SECRET);
    const files = {
      'large.json': encoder.encode(`${large}\n`),
      // Not UTF-8: read as Latin-1, one character per byte.
      'large.bin': new Uint8Array(256 * 1024).map((_, index) => 0x80 + (index % 0x80)),
    };
    const run = capturingIO({ FACEVERIFY_WEBHOOK_SECRET: SECRET }, files);
    const args = ['doctor', '--body', 'large.json', '--signature', signature];
    expect(await runCli(args, run.io)).toBe(EXIT.failed);
    expect(run.out.join('\n')).toMatch(/^✖ body-changed: The body has a trailing newline/);
    const binary = capturingIO({ FACEVERIFY_WEBHOOK_SECRET: SECRET }, files);
    args[2] = 'large.bin';
    expect(await runCli(args, binary.io)).toBe(EXIT.failed);
    expect(binary.out.join('\n')).toMatch(/^✖ no-match: No known change of the body/);
  });

  it('a header with a sha256= prefix is malformed, and says so', async () => {
    const signature = `sha256=${await sign(signed, SECRET)}`;
    const diagnosis = await diagnoseSignature(encoder.encode(signed), signature, [SECRET]);
    expect(diagnosis.kind).toBe('malformed-signature');
    expect(diagnosis.explanation).toContain('"sha256=" prefix');
  });

  it('from the command line: reads the file, explains, exits 1; exits 0 for a match', async () => {
    const signature = await sign(signed, SECRET);
    const files = {
      'pretty.json': encoder.encode(`${signed}\n`),
      'exact.json': encoder.encode(signed),
    };
    const changed = capturingIO({ FACEVERIFY_WEBHOOK_SECRET: SECRET }, files);
    const args = ['doctor', '--body', 'pretty.json', '--signature', signature];
    expect(await runCli(args, changed.io)).toBe(EXIT.failed);
    expect(changed.out.join('\n')).toMatch(/^✖ body-changed: The body has a trailing newline/);
    const exact = capturingIO({ FACEVERIFY_WEBHOOK_SECRET: SECRET }, files);
    args[2] = 'exact.json';
    expect(await runCli(args, exact.io)).toBe(EXIT.ok);
    expect(exact.out.join('\n')).toContain('✔ valid: The signature matches the body with secret#0');
  });
});
