import { createServer } from 'node:http';
import type { Receiver } from '@faceverify/core';
import { closeServer, listenOnLoopback } from './servers.js';

/** An app that hands every request, its exact bytes, to the Receiver `current()` returns. */
export interface ReceiverApp {
  /** The callback URL to give the emulator. */
  url: string;
  close(): Promise<void>;
}

/**
 * Starts a webhook route over plain node:http for a Receiver, as an app without an adapter
 * does (`receiver.receive`). `current` is read at each request, so a test can reconfigure the
 * app (a restart with other secrets) without another address.
 */
export async function startReceiverApp(current: () => Receiver): Promise<ReceiverApp> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const answer = await current().receive({
        method: request.method ?? 'POST',
        headers: request.headers,
        body: new Uint8Array(Buffer.concat(chunks)),
      });
      response.writeHead(answer.status, answer.headers).end(answer.body);
    });
  });
  const url = await listenOnLoopback(server);
  return { url, close: () => closeServer(server) };
}
