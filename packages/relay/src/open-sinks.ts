import type { VerificationCompletedEvent } from '@faceverify/core';
import type { OutboxTransaction } from '@faceverify/sinks/postgres';
import type { RelaySinkConfig } from './config.js';
import type { OpenedStore } from './open-store.js';
import { RelayConfigError } from './relay-config-error.js';

/** A sink the relay registers as a `verification.completed` handler. */
export interface OpenedSink {
  kind: RelaySinkConfig['kind'];
  /** The handler; transactional for the PostgreSQL outbox. */
  handler: (
    event: VerificationCompletedEvent,
    context: { transaction: OutboxTransaction | undefined },
  ) => Promise<void>;
  transactional: boolean;
  /** Ends the sink's connection, once the Receiver stopped. */
  close(): Promise<void>;
}

const nothingToClose = async () => undefined;

/**
 * Opens the sinks of `FACEVERIFY_SINKS`, each loading only its own client. A connection is
 * made here only where the client needs one before publishing (NATS); the others connect at
 * the first result and reconnect by themselves.
 */
export async function openSinks(
  configs: readonly RelaySinkConfig[],
  store: OpenedStore,
): Promise<OpenedSink[]> {
  const opened: OpenedSink[] = [];
  try {
    for (const config of configs) opened.push(await openSink(config, store));
  } catch (error) {
    await Promise.allSettled(opened.map((sink) => sink.close()));
    throw error;
  }
  return opened;
}

async function openSink(config: RelaySinkConfig, store: OpenedStore): Promise<OpenedSink> {
  switch (config.kind) {
    case 'redis': {
      const [{ Redis }, { redisStreamSink }] = await Promise.all([
        import('ioredis'),
        import('@faceverify/sinks/redis'),
      ]);
      // A publish to an unreachable Redis fails within a second, and is retried later.
      const redis = new Redis(config.url, { commandTimeout: 1_000, maxRetriesPerRequest: 1 });
      // Its errors reach the Receiver as the sink's failures (handler_failing, dead letters).
      redis.on('error', () => undefined);
      return {
        kind: config.kind,
        handler: redisStreamSink({ redis, stream: config.stream }),
        transactional: false,
        close: async () => {
          await redis.quit().catch(() => redis.disconnect());
        },
      };
    }
    case 'nats': {
      const [{ connect }, { jetstream }, { natsJetStreamSink }] = await Promise.all([
        import('@nats-io/transport-node'),
        import('@nats-io/jetstream'),
        import('@faceverify/sinks/nats'),
      ]);
      const connection = await connect({ servers: config.url, maxReconnectAttempts: -1 }).catch(
        (error: unknown) => {
          throw new RelayConfigError(
            'FACEVERIFY_SINK_NATS_URL',
            `The NATS server did not answer (${(error as { code?: string }).code ?? 'error'}): check FACEVERIFY_SINK_NATS_URL and that the server is up.`,
          );
        },
      );
      return {
        kind: config.kind,
        handler: natsJetStreamSink({ jetstream: jetstream(connection), subject: config.subject }),
        transactional: false,
        close: () => connection.drain(),
      };
    }
    case 'rabbitmq': {
      const { rabbitMqSink } = await import('@faceverify/sinks/rabbitmq');
      const sink = rabbitMqSink({
        url: config.url,
        exchange: config.exchange,
        routingKey: config.routingKey,
      });
      return { kind: config.kind, handler: sink, transactional: false, close: () => sink.close() };
    }
    case 'postgres': {
      const { outboxTableSql, postgresOutboxSink } = await import('@faceverify/sinks/postgres');
      // Checked by loadRelayConfig: the outbox needs a PostgreSQL or PGlite store.
      await store.query?.(outboxTableSql({ table: config.table }));
      return {
        kind: config.kind,
        handler: postgresOutboxSink({ table: config.table }),
        transactional: true,
        close: nothingToClose,
      };
    }
    case 'http': {
      const { httpForwardSink } = await import('@faceverify/sinks/http');
      return {
        kind: config.kind,
        handler: httpForwardSink({ url: config.url, secret: config.secret }),
        transactional: false,
        close: nothingToClose,
      };
    }
  }
}
