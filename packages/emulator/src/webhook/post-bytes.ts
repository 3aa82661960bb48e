import http from 'node:http';
import https from 'node:https';

/** What a receiver answered: its status and the start of its body. */
export interface PostAnswer {
  status: number;
  /** The first `ANSWER_PREVIEW_BYTES` of the body, as text, for the inspector. */
  body: string;
}

const ANSWER_PREVIEW_BYTES = 1024;

/**
 * POSTs exactly `body` and resolves with the response status and the start of its body; the
 * rest is drained and ignored. node:http is used rather than fetch so the bytes on the wire
 * are the signed bytes and no pooled connection outlives the delivery.
 */
export function postBytes(
  url: URL,
  body: Uint8Array,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<PostAnswer> {
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(body.byteLength) },
        agent: false,
        signal,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on('data', (chunk: Buffer) => {
          if (kept >= ANSWER_PREVIEW_BYTES) return;
          chunks.push(chunk.subarray(0, ANSWER_PREVIEW_BYTES - kept));
          kept += chunk.length;
        });
        const done = () => resolve({ status, body: Buffer.concat(chunks).toString('utf8') });
        response.on('end', done);
        // The status is known; a connection cut while reading the body keeps what arrived.
        response.on('error', done);
        response.on('aborted', done);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
