import 'reflect-metadata';
import { createReceiver, MemoryStore, type Receiver } from '@faceverify/core';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { appModule } from './app.module.js';
import type { PublicAddress } from './tokens.js';
import { UserVerifications } from './user-verifications.js';

export interface ServerOptions {
  /**
   * The Receiver to use. Default: one configured from `FACEVERIFY_WEBHOOK_SECRET`,
   * `FACEVERIFY_API_KEY` and `FACEVERIFY_BASE_URL`, with a MemoryStore.
   */
  receiver?: Receiver;
  /** Default 3000; 0 picks a free port. */
  port?: number;
  host?: string;
  /** Where browsers reach the app, when not at its listening address (a proxy, a tunnel). */
  publicUrl?: string;
}

export interface RunningServer {
  url: string;
  receiver: Receiver;
  verifications: UserVerifications;
  /** Stops polling and the Nest app. */
  close(): Promise<void>;
}

/** Starts the NestJS example and its polling for results whose webhook never arrives. */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  // MemoryStore tracks sessions in this process only, and forgets them on a restart. With
  // several instances, or to survive restarts, use RedisStore from @faceverify/redis.
  const receiver = options.receiver ?? createReceiver({ store: new MemoryStore() });
  await receiver.check(); // a wrong API key or base URL fails here, not at the first user
  const address: PublicAddress = { url: options.publicUrl ?? '' };
  const app = await NestFactory.create<NestExpressApplication>(
    appModule(receiver, address),
    // rawBody: Nest's JSON parser keeps the exact bytes the webhook signature covers.
    { rawBody: true, logger: ['error', 'warn'] },
  );
  const host = options.host ?? '127.0.0.1';
  await app.listen(options.port ?? 3000, host);
  const { port } = app.getHttpServer().address() as { port: number };
  const url = `http://${host}:${port}`;
  address.url ||= url;
  receiver.start();

  return {
    url,
    receiver,
    verifications: app.get(UserVerifications),
    async close() {
      await receiver.stop();
      await app.close();
    },
  };
}
