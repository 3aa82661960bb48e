import { ConfigurationError, type VerificationCompletedEvent } from '@faceverify/core';
import { encodeSinkMessage, type MessageOptions } from './message.js';
import { SinkError, sinkFailure } from './sink-error.js';

/** What the outbox writes through: the store's transaction (a `pg` `PoolClient`, or PGlite's). */
export interface OutboxTransaction {
  /** Runs one statement with its parameters in the transaction. */
  query(text: string, values?: unknown[]): Promise<unknown>;
}

/** Options of `postgresOutboxSink` and `outboxTableSql`. */
export interface PostgresOutboxOptions extends MessageOptions {
  /** The outbox table, optionally schema-qualified. Default `faceverify_outbox`. */
  table?: string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;

function tableOf(options: PostgresOutboxOptions): string {
  const table = options.table ?? 'faceverify_outbox';
  if (!IDENTIFIER.test(table)) {
    throw new ConfigurationError(
      'postgresOutbox: `table` must be a table name, optionally schema-qualified (letters, digits and _).',
    );
  }
  return table;
}

/**
 * The statement creating the outbox table if it does not exist: `position` (the order rows
 * were written in), `event_id` (unique), `message` (the `SinkMessage`, jsonb) and
 * `created_at`. Run it in your migrations, or once at start.
 *
 * @example
 * await pool.query(outboxTableSql());
 */
export function outboxTableSql(options: Pick<PostgresOutboxOptions, 'table'> = {}): string {
  const table = tableOf(options);
  return `CREATE TABLE IF NOT EXISTS ${table} (
  position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id text NOT NULL UNIQUE,
  message jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
)`;
}

/**
 * A transactional `verification.completed` handler that writes each result as a row of the
 * outbox table in the delivery's own transaction: the row and the record of the delivery
 * commit together, or neither does. Register it with `{ transactional: true }` on a
 * `PostgresStore` whose database holds the table (`outboxTableSql`).
 *
 * Consumers can count on each result being in the table exactly once: a delivery that did
 * not commit wrote no row, and `event_id` is unique (`ON CONFLICT DO NOTHING`) besides. A
 * consumer takes rows in `position` order and deletes them in the transaction that handles
 * them (`FOR UPDATE SKIP LOCKED` lets several share the table).
 *
 * @example
 * import { outboxTableSql, postgresOutboxSink } from '@faceverify/sinks/postgres';
 * await pool.query(outboxTableSql());
 * receiver.on('verification.completed', postgresOutboxSink(), { transactional: true });
 */
export function postgresOutboxSink(
  options: PostgresOutboxOptions = {},
): (
  event: VerificationCompletedEvent,
  context: { transaction: OutboxTransaction | undefined },
) => Promise<void> {
  const insert = `INSERT INTO ${tableOf(options)} (event_id, message) VALUES ($1, $2::jsonb) ON CONFLICT (event_id) DO NOTHING`;
  return async (event, { transaction }) => {
    if (!transaction) {
      throw new SinkError(
        'postgres',
        'The outbox sink got no transaction: register it with { transactional: true } on a PostgresStore.',
      );
    }
    try {
      await transaction.query(insert, [event.id, encodeSinkMessage(event, options)]);
    } catch (error) {
      throw sinkFailure('postgres', 'Writing the result to the outbox failed', error);
    }
  };
}
