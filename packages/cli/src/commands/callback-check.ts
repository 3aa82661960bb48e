import { sign } from '@faceverify/core';
import type { Report } from '../check-report.js';
import { describeAnswer, postWebhook, type WebhookAnswer } from '../post-webhook.js';
import { webhookBody } from './trigger.js';

/** The user of doctor's test webhooks: one no session tracks, so no handler runs. */
const DOCTOR_USER = 'faceverify-doctor';

/** What the second test body holds that parsing and serializing again would change. */
const PROBE_CHANGES = 'spaced, escaped, 0.980';

/**
 * The test webhook again, written as `JSON.stringify` never writes it: spaced over several
 * lines, each `/` escaped as `\/`, the confidence as `0.980`, its keys in the service's order
 * (not sorted). A receiver that checks the signature over a body parsed and serialized again
 * (`req.rawBody = JSON.stringify(req.body)`, a proxy that rewrites JSON) refuses it, though
 * it accepts the compact one, which both leave as it was: every real webhook would be refused.
 */
export function reserializationProbe(user: string): string {
  const fields: Record<string, unknown> = JSON.parse(webhookBody('verified', user, null));
  const lines = Object.entries(fields).map(([key, value]) => {
    const text =
      typeof value === 'number' ? value.toFixed(3) : JSON.stringify(value).replaceAll('/', '\\/');
    return `  ${JSON.stringify(key)}: ${text}`;
  });
  return `{\n${lines.join(',\n')}\n}`;
}

/**
 * Sends the receiver at `url` two signed test webhooks: the compact body, then the same one
 * that serializing again would change, and says what the answers prove. A receiver that
 * takes both checks signatures over the bytes as sent, with the secret doctor signed with:
 * that proves the receiver and this command agree, not that the secret is the one the
 * service signs with, which only a real webhook can tell (`--body`/`--signature`).
 */
export async function checkCallback(url: string, secret: string, checks: Report): Promise<void> {
  const compact = await send(url, webhookBody('verified', DOCTOR_USER, null), secret);
  const [first = '', ...rest] = compact.lines;
  const summary = `the receiver at ${url} answered a signed test webhook: ${first.slice(2)}`;
  if (!compact.ok) {
    checks.fail(summary, rest.join('\n').trim());
    return;
  }
  checks.pass(summary);
  const probe = await send(url, reserializationProbe(DOCTOR_USER), secret);
  if (!probe.ok) {
    checks.fail(
      `the receiver at ${url} refused a correctly signed body that parsing and serializing again would change (${PROBE_CHANGES}): ${probe.lines[0]?.slice(2)}`,
      isSignatureRefusal(probe.answer)
        ? "It checks the signature over the body serialized again, not over the bytes as sent: every real webhook is refused. Pass the webhook middleware the raw bytes: mount it before express.json() (or give express.json({ verify: captureRawBody })) instead of `req.rawBody = JSON.stringify(req.body)`, and let any proxy in front pass the body through unchanged. docs/frameworks.md shows each framework's way."
        : probe.lines.slice(1).join('\n').trim(),
    );
    return;
  }
  checks.pass(
    `it checks the signature over the body as sent: it accepted one that parsing and serializing again would change (${PROBE_CHANGES})`,
  );
  checks.note(
    "proved: the receiver checks signatures with secret#0 of FACEVERIFY_WEBHOOK_SECRET, the one this command signed with. not proved: that it is the signing secret in the service's Settings, which real webhooks are signed with (a secret mistyped in both places passes too). To check that, capture one real webhook's body byte for byte and its X-Webhook-Signature header, and run `faceverify doctor --body FILE --signature HEX` with the receiver's FACEVERIFY_WEBHOOK_SECRET.",
  );
}

async function send(url: string, body: string, secret: string) {
  const answer = await postWebhook(url, body, await sign(body, secret));
  return { answer, ...describeAnswer(answer) };
}

/** Whether the receiver answered that the signature does not match the body. */
function isSignatureRefusal(answer: WebhookAnswer): boolean {
  if (answer.kind !== 'answer' || answer.status !== 401) return false;
  try {
    return JSON.parse(answer.body).error === 'signature_invalid';
  } catch {
    return false;
  }
}
