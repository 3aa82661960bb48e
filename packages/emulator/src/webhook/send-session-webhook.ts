import type { EmulatorContext } from '../emulator-context.js';
import type { SessionRecord } from '../sessions/session-record.js';
import { sessionIdOf } from '../sessions/session-store.js';
import { webhookForSession } from './webhook-for-session.js';

/**
 * Starts sending a completed session's webhook to its account's callback URL, signed with its
 * account's secret: the completion sends it, and the inspector resends it.
 */
export async function sendSessionWebhook(
  ctx: EmulatorContext,
  record: SessionRecord,
): Promise<void> {
  const account = ctx.accounts.get(record.accountId);
  ctx.webhooks.dispatch(await webhookForSession(ctx, record), sessionIdOf(record), account);
}
