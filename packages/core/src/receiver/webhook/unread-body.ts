/**
 * A body the adapter could not read as the exact bytes sent, handed to the Receiver to
 * answer (`WebhookRequest.body`): too large (`413`), consumed by a body parser mounted first
 * (`500 raw_body_unavailable`; `hint` says how to fix the mount order), ended early or
 * aborted (`400 body_unreadable`; `reason` says which), or slower than the adapter's
 * `bodyTimeoutMs` (`408`). Hints and reasons are fixed sentences, never request data: a
 * sender must not fill the log.
 */
export type UnreadBody =
  | { kind: 'too-large' }
  | {
      kind: 'unavailable';
      hint: string;
      /**
       * What the parser kept of the body, when it kept something (decompressed bytes, text,
       * parsed JSON written out again): never verified as the webhook, only checked against
       * its signature, so that a refusal counts toward the `raw_body_unavailable` alarm
       * only when the service signed it, never when a stranger sent it.
       */
      kept?: Uint8Array;
    }
  | { kind: 'unreadable'; reason: string }
  | { kind: 'timeout'; afterMs: number };
