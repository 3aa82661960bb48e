import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A signed webhook as it went over the wire: what an attacker who saw it could keep. */
export interface CapturedWebhook {
  body: Buffer;
  signature: string;
}

/** POSTs a webhook byte for byte, as the service (or someone replaying it) would. */
export async function sendWebhook(url: string, webhook: CapturedWebhook) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-signature': webhook.signature },
    body: new Uint8Array(webhook.body),
  });
  return { status: response.status, text: await response.text() };
}

/** Sits between the emulator and the receiver, keeping a copy of every webhook it passes on. */
export async function startWebhookRecorder(target: () => string) {
  const captured: CapturedWebhook[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const signature = String(req.headers['x-webhook-signature'] ?? '');
      captured.push({ body, signature });
      const answer = await sendWebhook(target(), { body, signature });
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    captured,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
