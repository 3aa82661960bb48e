import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createReceiver, type ReceiverOptions, type VerificationPayload } from '@faceverify/core';
import { verificationWebhook } from '@faceverify/express';
import express from 'express';
import type { CliIO } from '../src/index.js';

/** A CliIO whose output the test reads; files are given by name. */
export function capturingIO(env: Record<string, string>, files: Record<string, Uint8Array> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    env,
    readFile: async (path) => {
      const file = files[path];
      if (!file) throw new Error(`no file ${path} in this test`);
      return file;
    },
  };
  return { io, out, err, all: () => [...out, ...err].join('\n') };
}

export interface TestReceiver {
  url: string;
  delivered: VerificationPayload[];
  close(): Promise<void>;
}

/** An Express app with the webhook middleware on a loopback port, as an integrator runs it. */
export async function startReceiver(
  options: Partial<ReceiverOptions> & { jsonFirst?: boolean } = {},
): Promise<TestReceiver> {
  const { jsonFirst, ...receiverOptions } = options;
  const receiver = createReceiver({ client: false, logger: false, ...receiverOptions });
  const delivered: VerificationPayload[] = [];
  receiver.on('verification.completed', (event) => {
    delivered.push(event.data);
  });
  const app = express();
  if (jsonFirst) app.use(express.json());
  app.use('/webhooks/verification', verificationWebhook(receiver));
  const server: Server = createServer(app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/verification`,
    delivered,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A proxy on a loopback port that forwards each request to `target` with its JSON body parsed
 * and serialized again, as `req.rawBody = JSON.stringify(req.body)` or a JSON-rewriting
 * proxy does; headers pass as they came.
 */
export async function startReserializingProxy(
  target: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string' && name !== 'content-length' && name !== 'host') {
        headers.set(name, value);
      }
    }
    const answer = await fetch(target, { method: 'POST', headers, body });
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? '' });
    res.end(await answer.text());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/verification`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
