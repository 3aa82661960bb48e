import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createReceiver, MemoryStore, type Receiver } from '@faceverify/core';
import { verificationWebhook as expressWebhook } from '@faceverify/express';
import { verificationWebhook as honoWebhook } from '@faceverify/hono';
import { verificationWebhook as koaWebhook } from '@faceverify/koa';
import { createAdaptorServer } from '@hono/node-server';
import express, { type NextFunction, type Request, type Response } from 'express';
import { Hono } from 'hono';
import Koa from 'koa';
import { SECRET } from './http-request.js';

export const ADAPTERS = ['express', 'koa', 'hono'] as const;
export type AdapterName = (typeof ADAPTERS)[number];

export const ADAPTER_LABELS: Record<AdapterName, string> = {
  express: 'Express 5',
  koa: 'Koa 3',
  hono: 'Hono on @hono/node-server',
};

/** One adapter on a real loopback port, with a Receiver whose handler records every call. */
export interface AdapterServer {
  name: AdapterName;
  port: number;
  /** external_user_id of every `verification.completed` the handler received, in order. */
  calls: string[];
  /** What the Receiver reported through its `error` event. */
  receiverErrors: string[];
  /** Errors the framework saw (an exception escaping the adapter). */
  frameworkErrors: string[];
  /**
   * Resolves once no result is pending or being delivered in the Receiver's store: every
   * handler acknowledged early (202) has finished.
   */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/**
 * `leak: true` makes the server keep every request object it is handed, the classic leak of
 * a request-scoped map never cleared: the memory bound must catch it.
 */
export interface AdapterServerOptions {
  leak?: boolean;
}

function recordingReceiver(calls: string[], errors: string[], store: MemoryStore): Receiver {
  const receiver = createReceiver({ secret: SECRET, client: false, store });
  receiver.on('verification.completed', (event) => {
    calls.push(event.data.external_user_id);
  });
  receiver.on('error', (error, context) => {
    errors.push(`${context.stage}: ${error instanceof Error ? error.message : String(error)}`);
  });
  return receiver;
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

function httpServerFor(name: AdapterName, receiver: Receiver, frameworkErrors: string[]): Server {
  if (name === 'express') {
    const app = express();
    // 'test' keeps Express's final handler from printing every error it is handed.
    app.set('env', 'test');
    app.use(expressWebhook(receiver));
    app.use((error: unknown, _req: Request, _res: Response, next: NextFunction) => {
      frameworkErrors.push(describe(error));
      next(error);
    });
    return createServer(app);
  }
  if (name === 'koa') {
    const app = new Koa();
    app.use(koaWebhook(receiver));
    app.on('error', (error: unknown) => {
      frameworkErrors.push(describe(error));
    });
    return createServer(app.callback());
  }
  const app = new Hono();
  app.use(honoWebhook(receiver));
  app.onError((error, c) => {
    frameworkErrors.push(describe(error));
    return c.text('Internal Server Error', 500);
  });
  return createAdaptorServer({ fetch: app.fetch }) as Server;
}

/** Starts one adapter on 127.0.0.1 (a free port). */
export async function startAdapter(
  name: AdapterName,
  options: AdapterServerOptions = {},
): Promise<AdapterServer> {
  const calls: string[] = [];
  const receiverErrors: string[] = [];
  const frameworkErrors: string[] = [];
  const store = new MemoryStore();
  const server = httpServerFor(
    name,
    recordingReceiver(calls, receiverErrors, store),
    frameworkErrors,
  );
  if (options.leak) {
    const kept: unknown[] = [];
    server.prependListener('request', (request) => kept.push(request));
  }
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    name,
    port,
    calls,
    receiverErrors,
    frameworkErrors,
    async settled() {
      for (;;) {
        const counts = await store.counts({ now: Date.now() });
        if (counts.pending === 0 && counts.delivering === 0) return;
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
