import { request } from 'node:http';
import { type Answer, answerFromParts } from './answer.js';

export interface WithheldBodyAnswer {
  answer: Answer;
  /** Resolves when the server closed the connection, rejects after `timeoutMs` without. */
  closed: Promise<void>;
  /** Drops the connection from this side. */
  abort(): void;
}

/**
 * Sends the request head of a POST whose Content-Length says `declaredLength`, then only
 * `sentPart` of its body (nothing by default), never the rest, and resolves with the answer.
 * A server that waits for the whole body never answers: that rejects after `timeoutMs`.
 * (fetch cannot do this: it computes Content-Length itself.)
 */
export function postWithheldBody(
  url: string,
  headers: Record<string, string>,
  declaredLength: number,
  { sentPart = new Uint8Array(0) as Uint8Array, timeoutMs = 3000 } = {},
): Promise<WithheldBodyAnswer> {
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
    outgoing.on('socket', (socket) => {
      const closed = new Promise<void>((resolveClosed, rejectClosed) => {
        const waiting = setTimeout(
          () => rejectClosed(new Error(`the server kept the connection open for ${timeoutMs} ms`)),
          timeoutMs,
        );
        socket.once('close', () => {
          clearTimeout(waiting);
          resolveClosed();
        });
      });
      // Only a case that asks for it waits on this; the others must not see it reject.
      closed.catch(() => undefined);
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
          const text = Buffer.concat(chunks).toString();
          resolve({
            answer: answerFromParts(incoming.statusCode ?? 0, received, text),
            closed,
            abort: () => outgoing.destroy(),
          });
        });
      });
    });
    outgoing.on('error', (error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(error);
    });
    outgoing.flushHeaders();
    if (sentPart.byteLength > 0) outgoing.write(sentPart);
  });
}

/** `postWithheldBody` with no byte of the body sent; the connection is dropped after. */
export async function postHeadOnly(
  url: string,
  headers: Record<string, string>,
  declaredLength: number,
  timeoutMs = 3000,
): Promise<Answer> {
  const { answer, abort } = await postWithheldBody(url, headers, declaredLength, { timeoutMs });
  abort();
  return answer;
}
