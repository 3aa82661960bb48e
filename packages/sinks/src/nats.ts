import type { VerificationCompletedEvent } from '@faceverify/core';
import type { JetStreamPublishOptions, PubAck } from '@nats-io/jetstream';
import { encodeSinkMessage, type MessageOptions } from './message.js';
import { durationOption, nameOption } from './options.js';
import { sinkFailure } from './sink-error.js';

/** What the sink needs of a JetStream client: `jetstream(connection)` of `@nats-io/jetstream`. */
export interface JetStreamPublisher {
  /** Publishes to a stream and resolves with its acknowledgement. */
  publish(
    subject: string,
    payload?: string | Uint8Array,
    options?: Partial<JetStreamPublishOptions>,
  ): Promise<PubAck>;
}

/** Options of `natsJetStreamSink`. */
export interface NatsJetStreamSinkOptions extends MessageOptions {
  /** The JetStream client: `jetstream(await connect({ servers }))`. */
  jetstream: JetStreamPublisher;
  /** The subject to publish on; a stream must capture it. */
  subject: string;
  /** How long to wait for the stream's acknowledgement. Default 5,000 ms. */
  timeoutMs?: number;
}

/**
 * A `verification.completed` handler that publishes each result to JetStream with the event
 * id as `Nats-Msg-Id`, and succeeds once the stream acknowledged it stored the message, or
 * that it already had it (`duplicate: true`, the server's deduplication). Without an
 * acknowledgement it throws `SinkError`, and the Receiver retries the result later.
 *
 * Consumers can count on each result being in the stream once if every retry falls within
 * the stream's `duplicate_window` (2 minutes unless configured: raise it to cover the
 * retries you expect, see the README); past it, a message whose acknowledgement was lost may
 * be stored twice, with the same `Nats-Msg-Id`.
 *
 * @example
 * import { jetstream } from '@nats-io/jetstream';
 * import { connect } from '@nats-io/transport-node';
 * import { natsJetStreamSink } from '@faceverify/sinks/nats';
 * const js = jetstream(await connect({ servers: 'nats://127.0.0.1:4222' }));
 * receiver.on('verification.completed', natsJetStreamSink({ jetstream: js, subject: 'faceverify.results' }));
 */
export function natsJetStreamSink(
  options: NatsJetStreamSinkOptions,
): (event: VerificationCompletedEvent) => Promise<void> {
  const { jetstream } = options;
  const subject = nameOption('natsJetStreamSink', 'subject', options.subject, 'subject');
  const timeout = durationOption('natsJetStreamSink', 'timeoutMs', options.timeoutMs, 5_000);
  return async (event) => {
    const body = encodeSinkMessage(event, options);
    try {
      await jetstream.publish(subject, body, { msgID: event.id, timeout });
    } catch (error) {
      throw sinkFailure('nats', 'Publishing the result to JetStream failed', error);
    }
  };
}
