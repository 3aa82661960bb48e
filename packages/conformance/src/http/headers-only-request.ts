import { request } from 'node:http';
import { type Answer, answerFromParts } from './answer.js';

/**
 * Sends only the request head of a POST whose Content-Length says `declaredLength`, never
 * a byte of its body, and resolves with the answer. A server that waits for the body
 * before judging its size never answers: that rejects after `timeoutMs`. (fetch cannot do
 * this: it computes Content-Length itself.)
 */
export function postHeadOnly(
  url: string,
  headers: Record<string, string>,
  declaredLength: number,
  timeoutMs = 3000,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const outgoing = request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(declaredLength) },
    });
    const timer = setTimeout(() => {
      settled = true;
      outgoing.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms while the body was withheld`));
    }, timeoutMs);
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const received = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          if (typeof value === 'string') received.set(name, value);
        }
        resolve(
          answerFromParts(incoming.statusCode ?? 0, received, Buffer.concat(chunks).toString()),
        );
        outgoing.destroy();
      });
    });
    outgoing.on('error', (error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(error);
    });
    outgoing.flushHeaders();
  });
}
