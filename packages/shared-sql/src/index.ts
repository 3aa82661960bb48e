// The SQL that PostgresStore, PGliteStore and D1Store share; each store's build inlines it.

export { OPEN_RECORD_GRACE_MS, type SqlDialect } from './dialect.js';
export { MalformedRowError } from './malformed-row-error.js';
export {
  resultText,
  SESSION_COLUMNS,
  type SessionRow,
  sessionColumns,
  sessionFromRow,
  sessionRowValues,
} from './session-row.js';
export {
  type StartClaimValues,
  type StartStatements,
  type StartTables,
  startClaimValues,
  startStatements,
} from './start-statements.js';
export { type SharedStatements, sharedStatements } from './statements.js';
export { storableUserIds } from './storable-user-ids.js';
