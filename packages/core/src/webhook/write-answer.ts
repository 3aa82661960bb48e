import type { Log } from '../logging/logger.js';
import { rejectionLog } from '../logging/rejection-log-limiter.js';
import type { ActivityWindow } from '../operations/activity-window.js';
import type { ReceiverTelemetry } from '../telemetry/receiver-telemetry.js';
import {
  type AnswerRow,
  type Decided,
  type ReceiverResponse,
  responseOf,
  WEBHOOK_ANSWERS,
} from './answers.js';

/** What writing an answer reports to. */
export interface AnswerContext {
  log: Log;
  now(): number;
  activity: ActivityWindow;
  telemetry: ReceiverTelemetry | undefined;
}

/**
 * Writes the answer the decision came to, as its row says: counted toward `health()`, logged
 * (with the decision's `logFields`), counted by telemetry under the row's name, and turned
 * into the HTTP answer.
 */
export function writeAnswer(context: AnswerContext, decided: Decided): ReceiverResponse {
  const row: AnswerRow = WEBHOOK_ANSWERS[decided.name];
  if (row.counts) context.activity.record(row.counts, undefined, decided.account);
  const { log } = row;
  if (log?.limited) rejectionLog(context.log, context.now).warn(log.message, decided.logFields);
  else if (log) context.log[log.level](log.message, decided.logFields);
  context.telemetry?.webhookAnswered(row.status, decided.name, decided.account);
  return responseOf(decided);
}
