import type { Store } from '@faceverify/core';
import { type CliIO, EXIT, envValue } from './cli-io.js';

/** A store the command line opened, and how to let the process end afterwards. */
export interface OpenedStore {
  store: Store;
  /** Which store it is, for messages: `Redis` or `PostgreSQL`. */
  name: string;
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
    const [{ Redis }, { RedisStore }] = await Promise.all([
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
      ...(choice.prefix === undefined ? {} : { prefix: choice.prefix }),
    });
    return { store, name: 'Redis', close: async () => void redis.disconnect() };
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
    const [pg, { PostgresStore }] = await Promise.all([
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
    return { store, name: 'PostgreSQL', close: () => pool.end() };
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
