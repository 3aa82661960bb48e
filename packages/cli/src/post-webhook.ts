import { type ReceiverErrorCode, SIGNATURE_HEADER } from '@faceverify/core';
import { summarizeBody } from './answer-summary.js';
import { printable } from './printable.js';
import { explainStatus, FIX_FOR_CODE } from './receiver-answers.js';

/** What a receiver did with a webhook: its answer, or why there was none. */
export type WebhookAnswer =
  | { kind: 'answer'; status: number; body: string }
  | { kind: 'unreachable'; reason: string };

const TIMEOUT_MS = 15_000;

/** POSTs a signed webhook as the service does: JSON, the signature header, no redirects. */
export async function postWebhook(
  url: string,
  body: string,
  signature: string,
): Promise<WebhookAnswer> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signature },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    return { kind: 'answer', status: response.status, body: await response.text() };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason =
      (error as Error).name === 'TimeoutError'
        ? `no answer within ${TIMEOUT_MS / 1000} s`
        : (cause?.code ?? cause?.message ?? (error as Error).message);
    return { kind: 'unreachable', reason };
  }
}

/** The answer in a few lines a person reads, and whether it was a 2xx. */
export function describeAnswer(answer: WebhookAnswer): { ok: boolean; lines: string[] } {
  if (answer.kind === 'unreachable') {
    return {
      ok: false,
      lines: [
        `✖ no answer: ${printable(answer.reason)}`,
        '  Is the app running, and is this the URL the service can reach (the callback_url in its Settings)?',
      ],
    };
  }
  const ok = answer.status >= 200 && answer.status < 300;
  const lines = [`${ok ? '✔' : '✖'} ${answer.status} ${summarizeBody(answer.body)}`];
  let json: { error?: string; untracked?: boolean } | undefined;
  try {
    json = JSON.parse(answer.body);
  } catch {
    json = undefined;
  }
  if (ok && json?.untracked) {
    lines.push(
      '  The URL and the secret are right. The receiver tracks no session of this user, so it did not call your handler (see untrackedWebhooks).',
    );
  } else if (!ok) {
    const code = json?.error as ReceiverErrorCode | undefined;
    lines.push(
      `  ${code && code in FIX_FOR_CODE ? `${code}: ${FIX_FOR_CODE[code]}` : explainStatus(answer.status)}`,
    );
  }
  return { ok, lines };
}
