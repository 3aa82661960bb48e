import type {
  FrontImageState,
  VerificationCompletedEvent,
  VerificationPayload,
} from '@faceverify/core';

/** What a sink puts in a message besides the result itself. */
export interface MessageOptions {
  /**
   * Also send the signed front image URL (`data.frontImageUrl`) and its state (`frontImage`).
   * The link shows the user's face to whoever holds it for its 15 minutes: send it only to a
   * queue whose every reader may see faces, and only when a consumer fetches the image.
   * Default `false`: the message has neither.
   */
  includeFrontImageUrl?: boolean;
}

/**
 * The JSON body of every message a sink sends: the event a handler gets, with dates as ISO
 * strings, and without what is a credential: never the session token (it could complete a
 * pending session), and the signed image link only with `includeFrontImageUrl`. No
 * `attempt` either: every retry sends the same message, so a consumer may compare two.
 */
export interface SinkMessage {
  /** `event.id`: the same on every delivery of this result. Deduplicate by it. */
  id: string;
  /** What the message is: a verification's result. */
  type: 'verification.completed';
  /** How the result reached faceverify: the signed webhook, or the polling fallback. */
  source: 'webhook' | 'poll';
  /** The account of the session, on a Receiver of several accounts; absent otherwise. */
  account?: string;
  /** When faceverify first received this result (ISO 8601). */
  receivedAt: string;
  /** `event.confirmed`: whether the result is known to be of a session this Receiver tracks. */
  confirmed: boolean;
  /**
   * `event.sessionStartedAt` (ISO 8601): when the result's session was started; absent for a
   * result matched to no tracked session. Of two results of one user, the later-started
   * session's is the newer.
   */
  sessionStartedAt?: string;
  /**
   * `event.superseded`: the user had started a newer session when this result was delivered.
   * A consumer for which the newest session decides ignores such a result.
   */
  superseded: boolean;
  /** The payload with its wire names; `frontImageUrl` only with `includeFrontImageUrl`. */
  data: Omit<VerificationPayload, 'frontImageUrl'> & { frontImageUrl?: string };
  /** The image link's state, dates as ISO strings; only with `includeFrontImageUrl`. */
  frontImage?: SinkFrontImageState;
}

/** `FrontImageState` with its dates as ISO strings. */
export type SinkFrontImageState =
  | { state: 'live'; expiresAt: string }
  | { state: 'expired'; expiredAt: string }
  | { state: 'removed' };

/** The message a sink sends for `event` (see `SinkMessage` for what it holds and leaves out). */
export function sinkMessage(
  event: VerificationCompletedEvent,
  options: MessageOptions = {},
): SinkMessage {
  const { frontImageUrl, ...rest } = event.data;
  const message: SinkMessage = {
    id: event.id,
    type: event.type,
    source: event.source,
    receivedAt: event.receivedAt.toISOString(),
    confirmed: event.confirmed,
    superseded: event.superseded,
    data: options.includeFrontImageUrl ? { ...rest, frontImageUrl } : rest,
  };
  if (event.account !== undefined) message.account = event.account;
  if (event.sessionStartedAt !== undefined) {
    message.sessionStartedAt = event.sessionStartedAt.toISOString();
  }
  if (options.includeFrontImageUrl) message.frontImage = isoState(event.frontImage);
  return message;
}

/** `sinkMessage` as the JSON text a sink sends. */
export function encodeSinkMessage(
  event: VerificationCompletedEvent,
  options: MessageOptions = {},
): string {
  return JSON.stringify(sinkMessage(event, options));
}

function isoState(state: FrontImageState): SinkFrontImageState {
  switch (state.state) {
    case 'live':
      return { state: 'live', expiresAt: state.expiresAt.toISOString() };
    case 'expired':
      return { state: 'expired', expiredAt: state.expiredAt.toISOString() };
    default:
      return { state: 'removed' };
  }
}
