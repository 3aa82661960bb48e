import { ConfigurationError, type VerificationCompletedEvent } from '@faceverify/core';
import { type ChannelModel, type ConfirmChannel, connect, type Options } from 'amqplib';
import { encodeSinkMessage, type MessageOptions } from './message.js';
import { SinkError, sinkFailure } from './sink-error.js';

/** Options of `rabbitMqSink`. */
export interface RabbitMqSinkOptions extends MessageOptions {
  /**
   * Where the broker is: an `amqp://` URL or amqplib's connect options. The sink opens its
   * own connection at the first result, and a new one after it was lost.
   */
  url: string | Options.Connect;
  /** amqplib's socket options (`timeout`, TLS, ...). */
  socketOptions?: Record<string, unknown>;
  /** The exchange to publish to; `''`, the default exchange, routes by queue name. */
  exchange: string;
  /** The routing key (with the default exchange: the queue's name). */
  routingKey: string;
}

/** A `verification.completed` handler publishing to RabbitMQ, and `close()` to end its connection. */
export interface RabbitMqSink {
  /** Publishes one result; register the sink itself as the handler. */
  (event: VerificationCompletedEvent): Promise<void>;
  /** Closes the sink's connection; a result arriving after it throws `SinkError`. */
  close(): Promise<void>;
}

interface Link {
  connection: ChannelModel;
  channel: ConfirmChannel;
  /** Message ids the broker returned as unroutable (`basic.return` comes before the ack). */
  returned: Set<string>;
}

/**
 * A `verification.completed` handler that publishes each result to RabbitMQ on a confirm
 * channel, persistent, with the event id as `messageId`, and succeeds once the broker
 * confirmed it (a message no queue took, `mandatory` returned, fails). Without a confirm it
 * throws `SinkError`, and the Receiver retries the result later.
 *
 * RabbitMQ does not deduplicate: consumers can count on each result at least once, and
 * deduplicate by `properties.messageId`. A second copy is published only when a confirm was
 * lost (the connection dropped after the broker stored the message). Declare the queue
 * durable, or a broker restart loses what it held.
 *
 * @example
 * import { rabbitMqSink } from '@faceverify/sinks/rabbitmq';
 * const sink = rabbitMqSink({ url: process.env.AMQP_URL, exchange: '', routingKey: 'faceverify.results' });
 * receiver.on('verification.completed', sink);
 * // at shutdown, after the receiver stopped:
 * await sink.close();
 */
export function rabbitMqSink(options: RabbitMqSinkOptions): RabbitMqSink {
  const { url, socketOptions, exchange, routingKey } = options;
  if (typeof exchange !== 'string' || typeof routingKey !== 'string') {
    throw new ConfigurationError(
      'rabbitMqSink: `exchange` and `routingKey` must be strings (`exchange: ""` is the default exchange).',
    );
  }
  if (url === undefined || url === '') {
    throw new ConfigurationError('rabbitMqSink: `url` must say where the broker is.');
  }
  let link: Promise<Link> | undefined;
  let closed = false;

  const open = (): Promise<Link> => {
    const opening = openLink(url, socketOptions, () => {
      if (link === opening) link = undefined;
    });
    // A failed attempt is forgotten, so the next result tries again.
    opening.catch(() => {
      if (link === opening) link = undefined;
    });
    link = opening;
    return opening;
  };

  const sink = async (event: VerificationCompletedEvent): Promise<void> => {
    if (closed) throw new SinkError('rabbitmq', 'The RabbitMQ sink was closed.');
    const body = Buffer.from(encodeSinkMessage(event, options));
    let current: Link;
    try {
      current = await (link ?? open());
    } catch (error) {
      throw sinkFailure('rabbitmq', 'Connecting to RabbitMQ failed', error);
    }
    try {
      await new Promise<void>((resolve, reject) => {
        current.channel.publish(
          exchange,
          routingKey,
          body,
          {
            messageId: event.id,
            persistent: true,
            mandatory: true,
            contentType: 'application/json',
            type: event.type,
          },
          (error) => (error ? reject(error) : resolve()),
        );
      });
    } catch (error) {
      throw sinkFailure('rabbitmq', 'RabbitMQ did not confirm the result', error);
    }
    if (current.returned.delete(event.id)) {
      throw new SinkError(
        'rabbitmq',
        'RabbitMQ returned the result: no queue is bound to the exchange with this routing key. Declare the queue and its binding.',
      );
    }
  };
  sink.close = async () => {
    closed = true;
    const current = link;
    link = undefined;
    if (!current) return;
    try {
      await (await current).connection.close();
    } catch {
      // Already closed, or never opened: nothing is left to close.
    }
  };
  return sink;
}

async function openLink(
  url: string | Options.Connect,
  socketOptions: Record<string, unknown> | undefined,
  lost: () => void,
): Promise<Link> {
  const connection = await connect(url, socketOptions);
  // An 'error' is followed by 'close'; without a listener, Node would throw it.
  connection.on('error', () => undefined);
  connection.on('close', lost);
  try {
    const channel = await connection.createConfirmChannel();
    const returned = new Set<string>();
    channel.on('error', () => undefined);
    channel.on('return', (message: { properties: { messageId?: unknown } }) => {
      const id = message.properties.messageId;
      if (typeof id === 'string') returned.add(id);
    });
    // A channel the broker closed (an exchange that does not exist) takes its connection
    // with it: the next result opens both again.
    channel.on('close', () => {
      lost();
      connection.close().catch(() => undefined);
    });
    return { connection, channel, returned };
  } catch (error) {
    connection.close().catch(() => undefined);
    throw error;
  }
}
