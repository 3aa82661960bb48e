/**
 * A local emulator of the face verification service: API, hosted page, signed webhooks, rate
 * limits and fault injection.
 *
 * @module @faceverify/emulator
 */

export type { EmulatorAccount, EmulatorAccountInfo } from './accounts/account-handle.js';
export { EmulatorRequestError } from './emulator-request-error.js';
export type {
  DelayFault,
  FaultSchedule,
  FaultSettings,
  FaultTrigger,
  RateLimitStormFault,
  ServerErrorFault,
  ServerErrorStatus,
} from './faults/fault-settings.js';
export { SERVER_ERROR_STATUSES } from './faults/fault-settings.js';
export type { EmulatorLogger } from './logger.js';
export type { EmulatorAccountOptions, EmulatorOptions, RateLimitOptions } from './options.js';
export type { CompletionResponse } from './routes/complete.js';
export { OUTCOMES, type Outcome, type SessionStatus } from './sessions/session-record.js';
export type { SessionResultView, SessionView } from './sessions/session-view.js';
export {
  type CreatedSession,
  type CreateSessionParams,
  type Emulator,
  startEmulator,
} from './start-emulator.js';
export type { EmulatorStats, WebhookStats } from './stats.js';
