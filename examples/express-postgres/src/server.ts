import { createServer, type Server } from 'node:http';
import { ConfigurationError, createReceiver, type ReceiverOptions } from '@faceverify/core';
import { PostgresStore } from '@faceverify/postgres';
import pg from 'pg';
import { createApp } from './app.js';
import { UsersTable } from './users-table.js';

export interface ServerOptions {
  /** The database. Default: a pool on `DATABASE_URL`, ended by `close()`. */
  pool?: pg.Pool;
  /**
   * Receiver options (timings, a client). Default: configured from `FACEVERIFY_WEBHOOK_SECRET`,
   * `FACEVERIFY_API_KEY` and `FACEVERIFY_BASE_URL`. The store is always the PostgresStore.
   */
  receiverOptions?: ReceiverOptions;
  /** Name of the users table. Default `users`. */
  usersTable?: string;
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Where browsers reach the app, when not at its listening address (a proxy, a tunnel). */
  publicUrl?: string;
}

export interface RunningServer {
  url: string;
  users: UsersTable;
  store: PostgresStore;
  /** Stops polling and the HTTP server (and the pool, when it made it). */
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

function ownPool(): pg.Pool {
  const connectionString = process.env.DATABASE_URL;
  if (!connectionString) {
    throw new ConfigurationError(
      'DATABASE_URL is not set: export the PostgreSQL connection string, e.g. postgres://user:password@127.0.0.1:5432/app.',
    );
  }
  const pool = new pg.Pool({ connectionString });
  // An idle connection that the server or a pooler ends is emitted here (node-postgres
  // would otherwise end the process); the pool opens a new one on the next query.
  pool.on('error', (error) => {
    console.warn(`PostgreSQL dropped an idle connection: ${error.message}`);
  });
  return pool;
}

/**
 * Starts the Express example on PostgreSQL: the store's tables and the users table are
 * created when missing, the verification handler writes users in the store's transaction,
 * and polling recovers results whose webhook never arrives.
 */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const pool = options.pool ?? ownPool();
  const store = new PostgresStore({ pool });
  await store.migrate();
  const users = new UsersTable(pool, options.usersTable);
  await users.create();

  const receiver = createReceiver({ ...options.receiverOptions, store });
  // Transactional: the users row and the record of the delivery commit together, so a
  // result is written exactly once, even when the process dies halfway.
  receiver.on(
    'verification.completed',
    async (event, { transaction }) => {
      await users.record(transaction, event);
    },
    { transactional: true },
  );

  const host = options.host ?? '127.0.0.1';
  const server = createServer();
  await receiver.check(); // a wrong API key or base URL fails here, not at the first user
  const port = await listen(server, options.port ?? 3000, host);
  const url = `http://${host}:${port}`;
  server.on('request', createApp({ receiver, users, publicUrl: options.publicUrl ?? url }));
  receiver.start();

  return {
    url,
    users,
    store,
    async close() {
      await receiver.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      if (!options.pool) await pool.end();
    },
  };
}
