import type { StoredRecordHead, StoredRecordsCount } from '@faceverify/core';
import type { Store } from '@faceverify/core/store';
import { type CliIO, EXIT, envValue } from './cli-io.js';

/** A store the command line opened, and how to let the process end afterwards. */
export interface OpenedStore {
  store: Store;
  /** Which store it is, for messages: `Redis` or `PostgreSQL`. */
  name: string;
  /** The environment variable that named it: `REDIS_URL` or `DATABASE_URL`. */
  variable: string;
  /** Where in it the store's data was looked for, for messages: the prefix, or the table. */
  place: string;
  /** How to point the command at another place: the options that name it, and defaults. */
  placeFix: string;
  /**
   * Whether any of the store's data is at that place. Reads only: the store's own calls
   * write bookkeeping (the marker, a write count) first, wherever they are pointed.
   */
  hasData(): Promise<boolean>;
  /** The store's records, counted by `classify`, and whether any data is there. Reads only. */
  countRecords(classify: (record: StoredRecordHead) => string): Promise<StoredRecordsCount>;
  close(): Promise<void>;
}

/** Where the store lives and how its keys or tables are named. */
export interface StoreChoice {
  /** `redis` or `postgres`; absent: the one whose URL is set. */
  kind?: string | undefined;
  /** The RedisStore `prefix`, or the PostgresStore table prefix. */
  prefix?: string | undefined;
  /** The PostgresStore schema. */
  schema?: string | undefined;
}

/** Why the store could not be opened: a usage error (exit 2) or a failure (exit 1). */
export class StoreChoiceError extends Error {
  constructor(
    message: string,
    readonly usage: boolean,
  ) {
    super(message);
  }
}

/** The options of every command that opens the store, for `parseArgs`. */
export const STORE_FLAGS = {
  store: { type: 'string' },
  prefix: { type: 'string' },
  schema: { type: 'string' },
} as const;

/**
 * Opens the store the `STORE_FLAGS` given to `command` name, or answers as every command does
 * when it cannot: a choice to fix is a usage error (`usage` prints it with the command's
 * help), anything else a failure (exit 1). Resolves the store, or the exit code to return.
 */
export async function openStoreFor(
  io: CliIO,
  command: string,
  flags: { store?: string | undefined; prefix?: string | undefined; schema?: string | undefined },
  usage: (message: string) => number,
): Promise<OpenedStore | number> {
  try {
    return await openStore(io, { kind: flags.store, prefix: flags.prefix, schema: flags.schema });
  } catch (error) {
    if (error instanceof StoreChoiceError && error.usage) return usage(error.message);
    io.err(`faceverify ${command}: ${(error as Error).message}`);
    return EXIT.failed;
  }
}

/**
 * Says that `opened` holds no data of a store where it was pointed, and how to point it
 * elsewhere: a wrong prefix or schema reads as a store with nothing in it.
 */
export function noStoreData(opened: OpenedStore): string {
  return `no faceverify data in ${opened.name} ${opened.place}. Check that ${opened.variable} is your receiver's store, and ${opened.placeFix}.`;
}

/**
 * Opens the application's store from `REDIS_URL` or `DATABASE_URL`, as `RedisStore` or
 * `PostgresStore` with the application's prefix and schema. The packages are optional peers
 * of the command line: the application that uses a store has them installed already.
 */
export async function openStore(io: CliIO, choice: StoreChoice): Promise<OpenedStore> {
  const redisUrl = envValue(io, 'REDIS_URL');
  const databaseUrl = envValue(io, 'DATABASE_URL');
  const kind = choice.kind ?? (redisUrl && databaseUrl ? 'both' : redisUrl ? 'redis' : 'postgres');
  if (kind === 'both') {
    throw new StoreChoiceError(
      'both REDIS_URL and DATABASE_URL are set: pass --store redis or --store postgres to say which store your receiver uses.',
      true,
    );
  }
  if (kind === 'redis') {
    if (!redisUrl) throw new StoreChoiceError('--store redis needs REDIS_URL to be set.', true);
    const [{ Redis }, { RedisStore, hasRedisStoreData, countRedisStoreRecords }] =
      await Promise.all([
        importPeer<typeof import('ioredis')>('ioredis', () => import('ioredis')),
        importPeer<typeof import('@faceverify/redis')>(
          '@faceverify/redis',
          () => import('@faceverify/redis'),
        ),
      ]);
    // One retry: a command line reports an unreachable Redis instead of waiting for it.
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
    redis.on('error', () => undefined);
    const store = new RedisStore({
      redis,
      // Reading and fixing dead letters is no reason to refuse a Redis that may evict.
      allowEviction: true,
      // A command makes a call or two and exits: a count of its writes, kept 7 days, would
      // be all it leaves besides what it was asked to do.
      watchRewinds: false,
      ...(choice.prefix === undefined ? {} : { prefix: choice.prefix }),
    });
    const location = { redis, ...(choice.prefix === undefined ? {} : { prefix: choice.prefix }) };
    return {
      store,
      name: 'Redis',
      variable: 'REDIS_URL',
      place: `under the prefix "${choice.prefix ?? 'faceverify:'}"`,
      placeFix: "pass --prefix as your receiver's RedisStore sets it (default faceverify:)",
      hasData: () => hasRedisStoreData(location),
      countRecords: (classify) => countRedisStoreRecords(location, classify),
      close: async () => void redis.disconnect(),
    };
  }
  if (kind === 'postgres') {
    if (!databaseUrl) {
      throw new StoreChoiceError(
        redisUrl === undefined
          ? 'set REDIS_URL or DATABASE_URL to the store your receiver uses.'
          : '--store postgres needs DATABASE_URL to be set.',
        true,
      );
    }
    const [pg, { PostgresStore, hasPostgresStoreData, countPostgresStoreRecords }] =
      await Promise.all([
        importPeer<typeof import('pg')>('pg', () => import('pg')),
        importPeer<typeof import('@faceverify/postgres')>(
          '@faceverify/postgres',
          () => import('@faceverify/postgres'),
        ),
      ]);
    const pool = new (pg.default ?? pg).Pool({ connectionString: databaseUrl, max: 2 });
    pool.on('error', () => undefined);
    const store = new PostgresStore({
      pool,
      ...(choice.prefix === undefined ? {} : { prefix: choice.prefix }),
      ...(choice.schema === undefined ? {} : { schema: choice.schema }),
    });
    const location = { pool, schema: choice.schema, prefix: choice.prefix };
    return {
      store,
      name: 'PostgreSQL',
      variable: 'DATABASE_URL',
      place: `as the table ${choice.schema ?? 'public'}.${choice.prefix ?? 'faceverify_'}sessions`,
      placeFix:
        "pass --schema and --prefix as your receiver's PostgresStore sets them (defaults public and faceverify_)",
      hasData: () => hasPostgresStoreData(location),
      countRecords: (classify) => countPostgresStoreRecords(location, classify),
      close: () => pool.end(),
    };
  }
  throw new StoreChoiceError(`--store must be redis or postgres, not "${kind}".`, true);
}

async function importPeer<T>(name: string, load: () => Promise<unknown>): Promise<T> {
  try {
    return (await load()) as T;
  } catch {
    throw new StoreChoiceError(
      `${name} is not installed where faceverify runs: install it (npm install ${name}), as the application that uses this store does.`,
      false,
    );
  }
}
