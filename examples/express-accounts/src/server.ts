import { createServer, type Server } from 'node:http';
import {
  type AccountConfig,
  createReceiver,
  MemoryStore,
  type Receiver,
  type ReceiverOptions,
} from '@faceverify/core';
import { AccountVerifications } from './account-verifications.js';
import { createApp } from './app.js';

export interface ServerOptions {
  /** Each account's id, signing secret and API client (`readAccountsFile` reads them from a file). */
  accounts: Record<string, AccountConfig>;
  /**
   * More Receiver options (a store, a poll schedule). `tokenKeys` default to
   * `FACEVERIFY_TOKEN_KEYS`, which a Receiver of several accounts needs.
   */
  receiver?: Omit<ReceiverOptions, 'accounts' | 'secret' | 'client'>;
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Where browsers reach the app, when not at its listening address (a proxy, a tunnel). */
  publicUrl?: string;
}

export interface RunningServer {
  url: string;
  receiver: Receiver;
  verifications: AccountVerifications;
  /** Stops polling and the HTTP server. */
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

/** Starts the two-account example and its polling for results whose webhook never arrives. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  // One Receiver for every account, one store, one sweep. MemoryStore tracks sessions in this
  // process only; with several instances use RedisStore or PostgresStore.
  const receiver = createReceiver({
    store: new MemoryStore(),
    ...options.receiver,
    accounts: options.accounts,
  });
  const verifications = new AccountVerifications();
  const host = options.host ?? '127.0.0.1';
  const server = createServer();
  // Every account's API key and base URL: a wrong one fails here, not at its first user.
  await receiver.check();
  const port = await listen(server, options.port ?? 3000, host);
  const url = `http://${host}:${port}`;
  server.on(
    'request',
    createApp({
      receiver,
      accounts: Object.keys(options.accounts),
      verifications,
      publicUrl: options.publicUrl ?? url,
    }),
  );
  receiver.start();

  return {
    url,
    receiver,
    verifications,
    async close() {
      await receiver.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
