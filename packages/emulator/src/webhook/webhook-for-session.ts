import type { EmulatorContext } from '../emulator-context.js';
import type { SessionRecord } from '../sessions/session-record.js';
import type { WebhookBody } from './serialize-body.js';

/**
 * The `verification.completed` body for a completed session, with a front image link issued
 * now (it expires 15 minutes later): the completion sends it, and the inspector resends it.
 */
export async function webhookForSession(
  ctx: EmulatorContext,
  record: SessionRecord,
): Promise<WebhookBody> {
  const { result, frontImageId } = record;
  if (!result || !frontImageId) throw new Error('the session is not completed');
  return {
    event: 'verification.completed',
    status: result.status,
    external_user_id: record.externalUserId,
    confidence: result.confidence,
    livenessPassed: result.livenessPassed,
    duplicate: result.duplicate,
    risk: result.risk,
    reason: result.reason,
    frontImageUrl: await ctx.images.issue(ctx.baseUrl(), frontImageId),
  };
}
