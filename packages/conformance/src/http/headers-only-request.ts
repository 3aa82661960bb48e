import { type ClientRequest, request } from 'node:http';
import { type Answer, answerFromParts } from './answer.js';

export interface WithheldBodyAnswer {
  answer: Answer;
  /** Resolves when the server closed the connection. */
  closed: Promise<void>;
  /** Drops the connection from this side. */
  abort(): void;
}

/**
 * Sends a POST whose Content-Length says `declaredLength` and resolves with the answer and
 * the connection's end. No deadline of its own: a server that never answers fails the case
 * by the test's timeout. (fetch cannot do this: it computes Content-Length itself.)
 */
function post(
  url: string,
  headers: Record<string, string>,
  declaredLength: number,
  send: (outgoing: ClientRequest) => void,
): Promise<WithheldBodyAnswer> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const outgoing = request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(declaredLength) },
    });
    outgoing.on('socket', (socket) => {
      const closed = new Promise<void>((resolveClosed) => socket.once('close', resolveClosed));
      outgoing.on('response', (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          if (settled) return;
          settled = true;
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
      reject(error);
    });
    outgoing.flushHeaders();
    send(outgoing);
  });
}

/**
 * Sends the request head of a POST whose Content-Length says `declaredLength`, then only
 * `sentPart` of its body (nothing by default), never the rest, and resolves with the answer.
 */
export function postWithheldBody(
  url: string,
  headers: Record<string, string>,
  declaredLength: number,
  { sentPart = new Uint8Array(0) as Uint8Array } = {},
): Promise<WithheldBodyAnswer> {
  return post(url, headers, declaredLength, (outgoing) => {
    if (sentPart.byteLength > 0) outgoing.write(sentPart);
  });
}

/** `postWithheldBody` with no byte of the body sent; the connection is dropped after. */
export async function postHeadOnly(
  url: string,
  headers: Record<string, string>,
  declaredLength: number,
): Promise<Answer> {
  const { answer, abort } = await postWithheldBody(url, headers, declaredLength);
  abort();
  return answer;
}

/**
 * Sends `body` under its Content-Length in `pieces` writes, a few milliseconds apart, so the
 * server receives it in several reads: how large bodies and slow links arrive. Any split is
 * a valid one; the pauses only make several likely.
 */
export async function postInPieces(
  url: string,
  headers: Record<string, string>,
  body: Uint8Array,
  pieces: number,
): Promise<Answer> {
  const size = Math.ceil(body.byteLength / pieces);
  const { answer } = await post(url, headers, body.byteLength, (outgoing) => {
    void (async () => {
      for (let start = 0; start < body.byteLength; start += size) {
        outgoing.write(body.subarray(start, start + size));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      outgoing.end();
    })();
  });
  return answer;
}
