import type { Receiver } from '@faceverify/core';
import { inBatches } from './redis-instances.js';

/**
 * Creates the table the receivers' transactional handler writes each result to. No unique
 * key on purpose: a result written twice shows as a second row, which the tests count.
 */
export async function createResultsTable(
  db: { query(sql: string): Promise<unknown> },
  table: string,
): Promise<void> {
  await db.query(`CREATE TABLE ${table} (
      session_token text NOT NULL, external_user_id text NOT NULL, status text NOT NULL,
      source text NOT NULL, pid integer NOT NULL)`);
}

/** Starts `count` sessions for users `<prefix><i>`, 20 at a time; their tokens as they come. */
export async function startSessions(
  starter: Pick<Receiver, 'startVerification'>,
  prefix: string,
  count: number,
): Promise<string[]> {
  const tokens: string[] = [];
  await inBatches(
    Array.from({ length: count }, (_, i) => `${prefix}${i}`),
    20,
    async (externalUserId) => {
      tokens.push((await starter.startVerification({ externalUserId })).token);
    },
  );
  return tokens;
}
