import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { ExchangeAnswer, HttpExchange } from './exchange.js';
import type * as HttpExchangeContract from './http-exchange.js';

/** Response headers as node:http parsed them (names in lower case), read like `Headers`. */
class NodeHeaders {
  constructor(private readonly headers: IncomingHttpHeaders) {}

  get(name: string): string | null {
    const value = this.headers[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }
}

/** The whole body of `response` as UTF-8 text; rejects when the connection ends before it. */
function readText(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    // The decoder holds a character split between two chunks until its rest arrives.
    response.setEncoding('utf8');
    let text = '';
    response.on('data', (chunk: string) => {
      text += chunk;
    });
    response.on('end', () => resolve(text));
    response.on('error', reject);
    // A connection closed mid-body ends the stream without 'end' (and, aborted, with 'error').
    response.on('close', () => {
      if (!response.complete) reject(new Error('The connection closed before the body ended.'));
    });
  });
}

/**
 * One request through node:http or node:https with their global agents: keep-alive, and a
 * proxy agent or a CA set there applies (`NODE_USE_ENV_PROXY` on Node 24 sets a proxy there).
 * Node's `fetch` (undici) spends more than twice the CPU on a small JSON request, for its Web
 * streams and objects: a sweep that polls thousands of sessions spent most of its time there.
 */
const nodeExchange: HttpExchange = ({ url, method, headers, body, signal }) =>
  new Promise<ExchangeAnswer>((resolve, reject) => {
    // Looked up on the module at each request, not bound at import: what instruments or mocks
    // node:http (OpenTelemetry's instrumentation, nock) replaces `request` there, at any time.
    const client = url.startsWith('https:') ? https : http;
    const outgoing =
      body === undefined
        ? headers
        : Object.assign({}, headers, { 'content-length': String(Buffer.byteLength(body)) });
    const request = client.request(url, { method, headers: outgoing, signal }, (response) => {
      readText(response).then(
        (text) =>
          resolve({
            status: response.statusCode ?? 0,
            headers: new NodeHeaders(response.headers),
            text,
          }),
        (error: unknown) => reject(signal.aborted ? signal.reason : failure(error)),
      );
    });
    request.on('error', (error) => reject(signal.aborted ? signal.reason : failure(error)));
    request.end(body);
  });

/** Said as `fetch` says it: the error that names the cause (`ECONNREFUSED`, ...) is `cause`. */
const failure = (cause: unknown) => new Error('The request failed.', { cause });

/** node:http and node:https: Node's cheapest HTTP client. */
export function defaultExchange(): HttpExchange {
  return nodeExchange;
}

({ defaultExchange }) satisfies typeof HttpExchangeContract;
