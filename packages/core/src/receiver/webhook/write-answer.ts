import type { Log } from '../../base/logging/logger.js';
import { rejectionLog } from '../../base/logging/rejection-log-limiter.js';
import type { ActivityWindow } from '../../operations/activity-window.js';
import type { ReceiverTelemetry } from '../../operations/telemetry/receiver-telemetry.js';
import {
  type AnswerRow,
  type Decided,
  type ReceiverResponse,
  responseOf,
  WEBHOOK_ANSWERS,
} from './answers.js';

/**
 * What writing an answer reports to: the Receiver's, or where no Receiver can be built, the
 * adapter's (a log, the telemetry of the options, and no activity to count toward).
 */
export interface AnswerContext {
  log: Log;
  now(): number;
  activity: ActivityWindow | undefined;
  telemetry: ReceiverTelemetry | undefined;
}

/**
 * Writes the answer the decision came to, as its row says: counted toward `health()`, logged
 * (with the decision's `logFields`), counted by telemetry under the row's name, and turned
 * into the HTTP answer.
 */
export function writeAnswer(context: AnswerContext, decided: Decided): ReceiverResponse {
  const row: AnswerRow = WEBHOOK_ANSWERS[decided.name];
  if (row.counts) context.activity?.record(row.counts, undefined, decided.account);
  const { log } = row;
  if (log?.limited) rejectionLog(context.log, context.now).warn(log.message, decided.logFields);
  else if (log) context.log[log.level](filled(log.message, decided.detail), decided.logFields);
  context.telemetry?.webhookAnswered(row.status, decided.name, decided.account);
  return responseOf(decided);
}

/** A row's log message with its `{detail}` filled, when it has one. */
function filled(message: string, detail: string | undefined): string {
  return detail === undefined ? message : message.replace('{detail}', () => detail);
}
