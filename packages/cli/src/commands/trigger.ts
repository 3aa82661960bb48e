import { parseArgs } from 'node:util';
import { sign } from '@faceverify/core';
import { type CliIO, EXIT, envSecrets, usageError } from '../cli-io.js';
import { describeAnswer, postWebhook } from '../post-webhook.js';
import { printable } from '../printable.js';

export const TRIGGER_HELP = `usage: faceverify trigger --url URL [options]

Sends one verification.completed webhook, signed as the service signs it (hex HMAC-SHA256 of
the exact body) with the first secret in FACEVERIFY_WEBHOOK_SECRET, prints the receiver's
answer, and explains an answer that is not 2xx.

options:
  --url URL         the receiver's webhook URL (required)
  --status STATUS   verified (default) or failed
  --user ID         external_user_id (default faceverify-trigger)
  --reason TEXT     the reason field (default null when verified, liveness_check_failed when failed, as the emulator sends)
  -h, --help        this text

A Receiver with an API client answers 200 {"untracked":true} for a user with no session it
started: the URL and the secret are right, and nothing was delivered to your handler. Start
a session first (or set untrackedWebhooks: 'deliver') to see your handler run.

exit codes: 0 the receiver answered 2xx, 1 it answered otherwise or could not be reached,
2 a usage error (the reason is printed).`;

/** The body the service would send for this result, field for field. */
export function webhookBody(
  status: 'verified' | 'failed',
  user: string,
  reason: string | null,
): string {
  const verified = status === 'verified';
  return JSON.stringify({
    event: 'verification.completed',
    status,
    external_user_id: user,
    confidence: verified ? 0.98 : 0.12,
    livenessPassed: verified,
    duplicate: false,
    risk: verified ? 'low' : 'high',
    reason,
    frontImageUrl: 'https://files.example.test/front/faceverify-trigger.png',
  });
}

export async function trigger(args: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      url: { type: 'string' },
      status: { type: 'string', default: 'verified' },
      user: { type: 'string', default: 'faceverify-trigger' },
      reason: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    io.out(TRIGGER_HELP);
    return EXIT.ok;
  }
  if (!values.url) {
    return usageError(io, 'trigger', "--url is required (the receiver's webhook URL)");
  }
  if (values.status !== 'verified' && values.status !== 'failed') {
    return usageError(
      io,
      'trigger',
      `--status must be verified or failed, not "${printable(values.status)}"`,
    );
  }
  const [secret] = envSecrets(io);
  if (!secret) {
    io.err(
      "faceverify trigger: FACEVERIFY_WEBHOOK_SECRET is not set. Set it to the webhook signing secret your receiver uses (the service's Settings has it).",
    );
    return EXIT.failed;
  }
  const reason = values.reason ?? (values.status === 'failed' ? 'liveness_check_failed' : null);
  const body = webhookBody(values.status, values.user, reason);
  const signature = await sign(body, secret);
  io.out(`POST ${values.url} (verification.completed, ${values.status}, user ${values.user})`);
  const answer = await postWebhook(values.url, body, signature);
  const { ok, lines } = describeAnswer(answer);
  for (const line of lines) (ok ? io.out : io.err)(line);
  return ok ? EXIT.ok : EXIT.failed;
}
