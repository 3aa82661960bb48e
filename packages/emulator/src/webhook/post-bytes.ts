import http from 'node:http';
import https from 'node:https';

/**
 * POSTs exactly `body` and resolves with the response status once the headers arrive; the
 * rest of the response is drained and ignored. node:http is used rather than fetch so the
 * bytes on the wire are the signed bytes and no pooled connection outlives the delivery.
 */
export function postBytes(
  url: URL,
  body: Uint8Array,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<number> {
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
        response.resume();
        response.on('error', () => {
          // The status is already known; a connection cut while draining changes nothing.
        });
        resolve(response.statusCode ?? 0);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
