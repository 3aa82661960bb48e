import type { StoredResult, TrackedSession, TrackedState } from '@faceverify/core/store';

// Field names of the record hash. The Lua scripts read and write `user`, `createdAt`,
// `expiresAt`, `state`, `dueAt`, `attempts`, `result`, `leaseOwner`, `leaseUntil` and
// `purgeAt` (a closed record's end of retention) by these same names.
const STATES: readonly TrackedState[] = ['pending', 'delivering', 'completed', 'expired', 'failed'];

/**
 * A number as Redis accepts it both in a hash and as a sorted-set score: `String(Infinity)`
 * is not a valid score, `inf` is.
 */
export function formatNumber(value: number): string {
  if (value === Number.POSITIVE_INFINITY) return 'inf';
  if (value === Number.NEGATIVE_INFINITY) return '-inf';
  return String(value);
}

function parseNumber(text: string | undefined, field: string): number {
  if (text === 'inf') return Number.POSITIVE_INFINITY;
  if (text === '-inf') return Number.NEGATIVE_INFINITY;
  const value = Number(text);
  if (text === undefined || text === '' || Number.isNaN(value)) {
    throw new TypeError(`record field ${field} is not a number`);
  }
  return value;
}

export function serializeResult(result: StoredResult): string {
  return JSON.stringify(result);
}

/** The hash fields of a record, as alternating names and values for HSET. */
export function toFields(session: TrackedSession): string[] {
  const fields = [
    'user',
    session.externalUserId,
    'createdAt',
    formatNumber(session.createdAt),
    'expiresAt',
    formatNumber(session.expiresAt),
    'state',
    session.state,
    'dueAt',
    formatNumber(session.dueAt),
    'attempts',
    formatNumber(session.attempts),
  ];
  if (session.token !== undefined) fields.push('token', session.token);
  if (session.result) fields.push('result', serializeResult(session.result));
  if (session.lease) {
    fields.push('leaseOwner', session.lease.owner, 'leaseUntil', formatNumber(session.lease.until));
  }
  return fields;
}

function isState(value: string | undefined): value is TrackedState {
  return STATES.some((state) => state === value);
}

/** Rebuilds a record from its hash fields (HGETALL as an object). */
export function fromFields(key: string, fields: Readonly<Record<string, string>>): TrackedSession {
  const state = fields.state;
  if (!isState(state)) throw new TypeError(`record ${key} has no valid state`);
  const user = fields.user;
  if (user === undefined) throw new TypeError(`record ${key} has no user`);
  const session: TrackedSession = {
    key,
    externalUserId: user,
    createdAt: parseNumber(fields.createdAt, 'createdAt'),
    expiresAt: parseNumber(fields.expiresAt, 'expiresAt'),
    state,
    dueAt: parseNumber(fields.dueAt, 'dueAt'),
    attempts: parseNumber(fields.attempts, 'attempts'),
  };
  if (fields.token !== undefined) session.token = fields.token;
  if (fields.result !== undefined) session.result = JSON.parse(fields.result) as StoredResult;
  if (fields.leaseOwner !== undefined) {
    session.lease = {
      owner: fields.leaseOwner,
      until: parseNumber(fields.leaseUntil, 'leaseUntil'),
    };
  }
  return session;
}

/**
 * Whether a record read at `now` is past its retention: closed records carry `purgeAt`, and
 * Redis may still hold one for a little while after it (cleanup grace).
 */
export function isPurged(fields: Readonly<Record<string, string>>, now: number): boolean {
  return fields.purgeAt !== undefined && Number(fields.purgeAt) <= now;
}

/** A flat `[name, value, name, value, ...]` reply (HGETALL inside Lua) as an object. */
function pairsToObject(pairs: readonly unknown[], key: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    const name = pairs[i];
    const value = pairs[i + 1];
    if (typeof name !== 'string' || typeof value !== 'string') {
      throw new TypeError(`record ${key} came back malformed`);
    }
    fields[name] = value;
  }
  return fields;
}

/** One record returned by a script as its flat HGETALL reply. */
export function recordFromReply(key: string, reply: unknown): TrackedSession {
  if (!Array.isArray(reply)) throw new TypeError(`record ${key} came back malformed`);
  return fromFields(key, pairsToObject(reply, key));
}

/** Records returned by a script as `[[key, [name, value, ...]], ...]`. */
export function recordsFromReply(reply: unknown): TrackedSession[] {
  if (!Array.isArray(reply)) throw new TypeError('expected a list of records');
  return reply.map((entry: unknown) => {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string') {
      throw new TypeError('expected a [key, fields] pair');
    }
    return recordFromReply(entry[0], entry[1]);
  });
}
