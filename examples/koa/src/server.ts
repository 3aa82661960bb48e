import { createServer, type Server } from 'node:http';
import { createReceiver, MemoryStore, type Receiver } from '@faceverify/core';
import { createApp } from './app.js';
import { UserVerifications } from './user-verifications.js';

export interface ServerOptions {
  /**
   * The Receiver to use. Default: one configured from `FACEVERIFY_WEBHOOK_SECRET`,
   * `FACEVERIFY_API_KEY` and `FACEVERIFY_BASE_URL`, with a MemoryStore.
   */
  receiver?: Receiver;
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
  verifications: UserVerifications;
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

/** Starts the Koa example and its polling for results whose webhook never arrives. */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  // MemoryStore tracks sessions in this process only, and forgets them on a restart. With
  // several instances, or to survive restarts, use RedisStore from @faceverify/redis.
  const receiver = options.receiver ?? createReceiver({ store: new MemoryStore() });
  const verifications = new UserVerifications();
  const host = options.host ?? '127.0.0.1';
  const server = createServer();
  await receiver.check(); // a wrong API key or base URL fails here, not at the first user
  const port = await listen(server, options.port ?? 3000, host);
  const url = `http://${host}:${port}`;
  // The app needs its own address for the redirect, known once the port is.
  server.on(
    'request',
    createApp({ receiver, verifications, publicUrl: options.publicUrl ?? url }).callback(),
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
