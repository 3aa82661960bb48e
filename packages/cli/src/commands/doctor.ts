import { parseArgs } from 'node:util';
import { createClient, FaceverifyError } from '@faceverify/core';
import { type Report, report } from '../check-report.js';
import { type CliIO, EXIT, envSecrets, envValue, usageError } from '../cli-io.js';
import { diagnoseSignature } from '../signature-diagnosis.js';
import { checkCallback } from './callback-check.js';

export const DOCTOR_HELP = `usage: faceverify doctor [--callback-url URL]
       faceverify doctor --body FILE --signature HEX

Checks the environment a receiver runs with:
  - FACEVERIFY_WEBHOOK_SECRET is set, and each secret in it (comma-separated during a rotation)
    is long enough;
  - FACEVERIFY_API_KEY is accepted by the service at FACEVERIFY_BASE_URL (and does not look
    swapped with the secret: whsec_… is a secret's prefix, fv_… an API key's);
  - with --callback-url (or FACEVERIFY_CALLBACK_URL), the receiver answers a signed test
    webhook (for a user no session tracks, so no handler runs on a Receiver with a client),
    and a second one that parsing and serializing the body again would change: a receiver
    that checks signatures over JSON.stringify(req.body) refuses every real webhook.
    That proves the receiver and doctor use the same secret, not that it is the one in the
    service's Settings: --body and --signature on a captured real webhook prove that.

With --body and --signature, says why a captured webhook's signature does not match its
body: a wrong secret, a body serialized again (key order, whitespace), a trailing newline,
converted line endings, another character encoding.

options:
  --callback-url URL   the receiver's webhook URL, as set in the service's Settings
  --body FILE          the captured request body, byte for byte
  --signature HEX      the captured X-Webhook-Signature header
  -h, --help           this text

exit codes: 0 every check passed (or the signature matches), 1 a check failed (or the
signature does not match), 2 a usage error.`;

const MIN_SECRET_BYTES = 16;

function checkSecrets(io: CliIO, checks: Report): string[] {
  const secrets = envSecrets(io);
  if (secrets.length === 0) {
    checks.fail(
      'FACEVERIFY_WEBHOOK_SECRET is not set',
      "Copy the webhook signing secret from the service's Settings into it.",
    );
    return secrets;
  }
  checks.pass(
    `FACEVERIFY_WEBHOOK_SECRET holds ${secrets.length} secret${secrets.length > 1 ? 's' : ''}`,
  );
  secrets.forEach((secret, index) => {
    if (new TextEncoder().encode(secret).length < MIN_SECRET_BYTES) {
      checks.note(
        `secret#${index} is shorter than ${MIN_SECRET_BYTES} bytes: is it the whole secret from Settings?`,
      );
    }
  });
  return secrets;
}

// The prefixes of the emulator's credentials (fv_test_…, whsec_…): one found in the other's
// variable is most likely a swap.
const API_KEY_PREFIX = 'fv_';
const SECRET_PREFIX = 'whsec_';

/** Notes an API key and a signing secret that look swapped, without printing either. */
function checkSwap(apiKey: string | undefined, secrets: readonly string[], checks: Report) {
  const keyIsSecret = apiKey?.startsWith(SECRET_PREFIX) === true;
  const secretIsKey = secrets.findIndex((secret) => secret.startsWith(API_KEY_PREFIX));
  if (!keyIsSecret && secretIsKey < 0) return;
  const found = [
    ...(keyIsSecret
      ? [`FACEVERIFY_API_KEY starts with ${SECRET_PREFIX}, as signing secrets do`]
      : []),
    ...(secretIsKey < 0
      ? []
      : [
          `secret#${secretIsKey} of FACEVERIFY_WEBHOOK_SECRET starts with ${API_KEY_PREFIX}, as API keys do`,
        ]),
  ];
  checks.note(
    `${found.join(', and ')}: are FACEVERIFY_API_KEY and FACEVERIFY_WEBHOOK_SECRET swapped? The API key (${API_KEY_PREFIX}…) goes into FACEVERIFY_API_KEY, the webhook signing secret (${SECRET_PREFIX}…) into FACEVERIFY_WEBHOOK_SECRET.`,
  );
}

/**
 * A message of the client's construction, which says where the value came from: always the
 * environment here, so `the apiKey option` is FACEVERIFY_API_KEY.
 */
function asEnvironment(message: string): string {
  return message
    .replaceAll('the apiKey option', 'FACEVERIFY_API_KEY')
    .replaceAll('baseUrl option or FACEVERIFY_BASE_URL', 'FACEVERIFY_BASE_URL');
}

async function checkApiKey(
  apiKey: string | undefined,
  baseUrl: string | undefined,
  checks: Report,
): Promise<void> {
  if (!apiKey || !baseUrl) {
    const unset = [
      ...(apiKey ? [] : ['FACEVERIFY_API_KEY']),
      ...(baseUrl ? [] : ['FACEVERIFY_BASE_URL']),
    ];
    checks.fail(
      `${unset.join(' and ')} ${unset.length > 1 ? 'are' : 'is'} not set`,
      "Both are needed to start sessions and to poll: the API key is in the service's Settings (the emulator prints both).",
    );
    return;
  }
  try {
    // The same check as receiver.check(): the key's read and a read without it, since a 404
    // alone is also what a base URL without the service's API answers.
    await createClient({
      apiKey,
      baseUrl,
      maxRetries: 0,
      timeoutMs: 10_000,
      logger: false,
    }).check();
    checks.pass(`the service at ${baseUrl} accepted FACEVERIFY_API_KEY`);
  } catch (error) {
    if (!(error instanceof FaceverifyError)) throw error;
    checks.fail(asEnvironment(error.message));
  }
}

async function diagnose(io: CliIO, file: string, signature: string): Promise<number> {
  const secrets = envSecrets(io);
  if (secrets.length === 0) {
    io.err(
      'faceverify doctor: FACEVERIFY_WEBHOOK_SECRET is not set: the signature can only be checked against the secret your receiver uses.',
    );
    return EXIT.failed;
  }
  const body = await io.readFile(file);
  const diagnosis = await diagnoseSignature(body, signature, secrets);
  io.out(`${diagnosis.kind === 'valid' ? '✔' : '✖'} ${diagnosis.kind}: ${diagnosis.explanation}`);
  return diagnosis.kind === 'valid' ? EXIT.ok : EXIT.failed;
}

export async function doctor(args: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      'callback-url': { type: 'string' },
      body: { type: 'string' },
      signature: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    io.out(DOCTOR_HELP);
    return EXIT.ok;
  }
  if ((values.body === undefined) !== (values.signature === undefined)) {
    return usageError(io, 'doctor', '--body and --signature go together');
  }
  if (values.body !== undefined && values.signature !== undefined) {
    return diagnose(io, values.body, values.signature);
  }
  const checks = report(io);
  const secrets = checkSecrets(io, checks);
  const apiKey = envValue(io, 'FACEVERIFY_API_KEY');
  checkSwap(apiKey, secrets, checks);
  await checkApiKey(apiKey, envValue(io, 'FACEVERIFY_BASE_URL'), checks);
  const callbackUrl = values['callback-url'] ?? envValue(io, 'FACEVERIFY_CALLBACK_URL');
  if (!callbackUrl) {
    checks.note(
      'the callback URL was not checked: pass --callback-url (or set FACEVERIFY_CALLBACK_URL)',
    );
  } else if (secrets[0]) {
    await checkCallback(callbackUrl, secrets[0], checks);
  }
  return checks.failed ? EXIT.failed : EXIT.ok;
}
