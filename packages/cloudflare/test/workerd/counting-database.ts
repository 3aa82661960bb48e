import type { RoundTripMeter } from '@faceverify/test-support/round-trips';
import type { D1Database, D1PreparedStatement, D1Result } from '../../src/index.js';

/** What went to D1 through a counting database. */
export interface D1Traffic {
  /** Statements executed, each statement of a batch counted. */
  statements: number;
  /** Calls to D1: one per statement run alone, one per batch. */
  roundTrips: number;
  /** Rows D1 reports having read, summed. */
  rowsRead: number;
}

/**
 * A D1 binding that counts what passes through it to the real one, and notes each call in
 * `meter` when given one: a call to D1 (a statement alone, or a batch) is one request, and
 * calls in flight together are one round trip.
 */
export function countingDatabase(
  db: D1Database,
  meter?: RoundTripMeter,
): { db: D1Database; traffic: D1Traffic } {
  const traffic: D1Traffic = { statements: 0, roundTrips: 0, rowsRead: 0 };
  const call = async <Row>(
    name: string,
    statements: number,
    send: () => Promise<D1Result<Row>[]>,
  ): Promise<D1Result<Row>[]> => {
    traffic.statements += statements;
    traffic.roundTrips += 1;
    const answered = meter?.send(name);
    try {
      const results = await send();
      for (const result of results) traffic.rowsRead += result.meta?.rows_read ?? 0;
      return results;
    } finally {
      answered?.();
    }
  };
  const wrap = (statement: D1PreparedStatement, name: string): D1PreparedStatement =>
    ({
      bind: (...values) => wrap(statement.bind(...values), name),
      all: async <Row>() => (await call(name, 1, async () => [await statement.all<Row>()]))[0]!,
      run: async <Row>() => (await call(name, 1, async () => [await statement.run<Row>()]))[0]!,
      unwrap: () => statement,
      name,
    }) as D1PreparedStatement;
  return {
    traffic,
    db: {
      prepare: (query) => wrap(db.prepare(query), nameOf(query)),
      batch: <Row>(statements: D1PreparedStatement[]) => {
        const names = statements.map((statement) => (statement as unknown as Wrapped).name);
        return call(`batch(${names.join(', ')})`, statements.length, () =>
          db.batch<Row>(statements.map((statement) => (statement as unknown as Wrapped).unwrap())),
        );
      },
    },
  };
}

interface Wrapped {
  unwrap(): D1PreparedStatement;
  name: string;
}

/** A statement named by its first word and its table, for the meter's sequence. */
function nameOf(query: string): string {
  const words = query.trim().split(/\s+/);
  const table = words.find((word) => word.startsWith('faceverify_'));
  return table ? `${words[0]!.toUpperCase()} ${table}` : words[0]!.toUpperCase();
}
