import { createHash } from 'node:crypto';
import { ConfigurationError } from '@faceverify/core';

/** Where the store's tables live. */
export interface TableNames {
  schema: string;
  prefix: string;
  /** `schema.prefix_sessions`, ready to put in SQL. */
  sessions: string;
  digests: string;
  migrations: string;
  /** Starts (`Store.claimStart`): one row per need of one user. */
  starts: string;
  /** Counts of starts, one row per counter and period. */
  startCounts: string;
  /** The function `claimStart` calls: one round trip for its locks and decisions. */
  claimStart: string;
}

// Names go into SQL as identifiers, so only plain lower-case ones are accepted: they need
// no quoting, and nothing a caller passes can change a statement. A refused value is never
// repeated in the error: a connection string passed in the wrong option would be printed.
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

export const DEFAULT_SCHEMA = 'public';
export const DEFAULT_PREFIX = 'faceverify_';

export function tableNames(
  schema: string = DEFAULT_SCHEMA,
  prefix: string = DEFAULT_PREFIX,
): TableNames {
  if (!IDENTIFIER.test(schema) || schema.length > 63) {
    throw new ConfigurationError(
      `The store's \`schema\` must be a plain lower-case SQL identifier of at most 63 characters (letters, digits, _, not starting with a digit), e.g. 'public' or 'faceverify'; the value given is not one.`,
    );
  }
  // 63 bytes is PostgreSQL's identifier limit; the longest name added is `_sessions_due`.
  if (prefix !== '' && (!IDENTIFIER.test(prefix) || prefix.length > 40)) {
    throw new ConfigurationError(
      `The store's \`prefix\` must be a plain lower-case SQL identifier start of at most 40 characters (letters, digits, _, not starting with a digit), e.g. 'faceverify_'; the value given is not one.`,
    );
  }
  return {
    schema,
    prefix,
    sessions: `${schema}.${prefix}sessions`,
    digests: `${schema}.${prefix}digests`,
    migrations: `${schema}.${prefix}migrations`,
    starts: `${schema}.${prefix}starts`,
    startCounts: `${schema}.${prefix}start_counts`,
    claimStart: `${schema}.${prefix}claim_start`,
  };
}

/**
 * The LISTEN/NOTIFY channel of the store whose tables are `tables`: channels are shared by
 * the whole database, and at most 63 bytes, so the schema and prefix are hashed into it.
 */
export function closedChannel(tables: TableNames): string {
  const digest = createHash('sha256').update(`${tables.schema}.${tables.prefix}`).digest('hex');
  return `faceverify_closed_${digest.slice(0, 16)}`;
}
