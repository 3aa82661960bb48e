import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { verify } from '@faceverify/core';
import { closeServer, listenOnLoopback } from './servers.js';

/** One webhook request as it arrived, bytes untouched. */
export interface ReceivedWebhook {
  rawBody: Buffer;
  signature: string | undefined;
  headers: IncomingHttpHeaders;
  /** Whether the signature matches the raw bytes under the receiver's secret. */
  verified: boolean;
  receivedAt: number;
}

/** How the receiver answers: 2xx or 401 by signature, always 500, or never. */
export type ReceiverBehaviour = 'verify' | 'fail' | 'hang';

export interface WebhookReceiver {
  /** The callback URL to give the emulator. */
  url: string;
  received: ReceivedWebhook[];
  /** Resolves with the first `count` webhooks once they have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/**
 * A webhook receiver built on plain node:http and core's `verify`, as an integrator's backend
 * would verify: over the exact raw bytes, before any parsing. Tests only rely on this
 * interface, so the receiver can be swapped for a framework adapter without touching them.
 */
export async function startWebhookReceiver(options: {
  secret: string;
  behaviour?: ReceiverBehaviour;
  path?: string;
}): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const behaviour = options.behaviour ?? 'verify';
  const server = createServer((request, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const rawBody = Buffer.concat(chunks);
      const signature = request.headers['x-webhook-signature'];
      const single = Array.isArray(signature) ? signature[0] : signature;
      const verified = await verify(rawBody, single, options.secret);
      received.push({
        rawBody,
        signature: single,
        headers: request.headers,
        verified,
        receivedAt: Date.now(),
      });
      if (behaviour === 'hang') return;
      if (behaviour === 'fail') response.writeHead(500).end();
      else
        response.writeHead(verified ? 200 : 401).end(verified ? 'ok' : 'signature does not match');
    });
  });
  const base = await listenOnLoopback(server);
  return {
    url: `${base}${options.path ?? '/webhooks/verification'}`,
    received,
    async waitFor(count, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) {
          throw new Error(
            `expected ${count} webhooks within ${timeoutMs} ms, got ${received.length}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return received.slice(0, count);
    },
    close: () => closeServer(server),
  };
}
