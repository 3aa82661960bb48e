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

/** A D1 binding that counts what passes through it to the real one. */
export function countingDatabase(db: D1Database): { db: D1Database; traffic: D1Traffic } {
  const traffic: D1Traffic = { statements: 0, roundTrips: 0, rowsRead: 0 };
  const tally = <Row>(results: D1Result<Row>[]) => {
    for (const result of results) traffic.rowsRead += result.meta?.rows_read ?? 0;
  };
  const wrap = (statement: D1PreparedStatement): D1PreparedStatement =>
    ({
      bind: (...values) => wrap(statement.bind(...values)),
      all: async <Row>() => {
        traffic.statements += 1;
        traffic.roundTrips += 1;
        const result = await statement.all<Row>();
        tally([result]);
        return result;
      },
      run: async <Row>() => {
        traffic.statements += 1;
        traffic.roundTrips += 1;
        const result = await statement.run<Row>();
        tally([result]);
        return result;
      },
      unwrap: () => statement,
    }) as D1PreparedStatement;
  return {
    traffic,
    db: {
      prepare: (query) => wrap(db.prepare(query)),
      batch: async <Row>(statements: D1PreparedStatement[]) => {
        traffic.statements += statements.length;
        traffic.roundTrips += 1;
        const results = await db.batch<Row>(
          statements.map((statement) => (statement as unknown as Unwrappable).unwrap()),
        );
        tally(results);
        return results;
      },
    },
  };
}

interface Unwrappable {
  unwrap(): D1PreparedStatement;
}
