import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

/** A Fetch handler listening on Node's HTTP server. */
export interface FetchServer {
  /** `http://host:port`, the address it listens on. */
  readonly url: string;
  /**
   * Stops accepting connections and resolves once the requests under way were answered, or
   * after `boundMs`, when the connections still open are closed: whether all ended in time.
   */
  close(boundMs: number): Promise<boolean>;
}

function toRequest(req: IncomingMessage, origin: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  // The body stream passes the bytes as they came: the signature is checked on them.
  return new Request(new URL(req.url ?? '/', origin), {
    method: req.method ?? 'GET',
    headers,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: 'half' } : {}),
  } as RequestInit);
}

async function answer(response: Response, res: ServerResponse, closing: boolean): Promise<void> {
  const body = new Uint8Array(await response.arrayBuffer());
  res.statusCode = response.status;
  response.headers.forEach((value, name) => {
    res.setHeader(name, value);
  });
  // Once stopping, a request under way is the connection's last: left open and idle, it
  // would hold the server's close until the client drops it (Node's fetch waits 4 s).
  if (closing) res.setHeader('connection', 'close');
  res.end(body);
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/**
 * Serves `handler` on `host:port` (port `0` picks a free one). A handler that throws is
 * answered `500` with no detail; the error goes to `onError`.
 */
export async function serveFetch(
  handler: (request: Request) => Promise<Response>,
  host: string,
  port: number,
  onError: (error: unknown) => void,
): Promise<FetchServer> {
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let origin = `http://${urlHost}:${port}`;
  let closing = false;
  const server = createServer((req, res) => {
    handler(toRequest(req, origin))
      .then((response) => answer(response, res, closing))
      .catch((error: unknown) => {
        onError(error);
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
  });
  const address = await listen(server, port, host);
  origin = `http://${urlHost}:${address.port}`;
  return {
    url: origin,
    close: (boundMs) =>
      new Promise((resolve) => {
        closing = true;
        const bound = setTimeout(() => {
          server.closeAllConnections();
          resolve(false);
        }, boundMs);
        server.close(() => {
          clearTimeout(bound);
          resolve(true);
        });
        server.closeIdleConnections();
      }),
  };
}
