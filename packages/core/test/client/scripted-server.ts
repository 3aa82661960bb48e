import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the server saw it; `at` is the time (`now`) when its body had arrived. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What the server does with one request. */
export type Reply =
  | { status: number; json?: unknown; text?: string; headers?: Record<string, string> }
  /** Never answers. */
  | { hang: 'before-headers' }
  /** Sends the headers and part of a body, then never finishes. */
  | { hang: 'mid-body' }
  /** Sends the headers and part of a body, then closes the connection. */
  | { cut: 'mid-body' }
  /** Closes the connection without an answer. */
  | { destroy: true };

export interface ScriptedServer {
  /** Base URL of the server, e.g. `http://127.0.0.1:40123`. */
  url: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 and a free port that answers each request with what
 * `script` returns (or resolves) for it; `index` counts requests from 0.
 */
export async function startScriptedServer(
  script: (request: ReceivedRequest, index: number) => Reply | Promise<Reply>,
  /** The clock arrivals are stamped with: a test clock, or `performance.now` by default. */
  now: () => number = () => performance.now(),
): Promise<ScriptedServer> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: now(),
      };
      // Recorded before the script answers, so a script that holds its answer is seen waiting.
      const index = requests.length;
      requests.push(received);
      const reply = await script(received, index);
      if ('destroy' in reply) {
        req.socket.destroy();
      } else if ('cut' in reply) {
        res.writeHead(200, { 'content-type': 'application/json' });
        // Closed once the part has left, so the client reads it before the close.
        res.write('{"token":', () => req.socket.destroy());
      } else if ('hang' in reply) {
        if (reply.hang === 'mid-body') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"token":');
        }
      } else {
        const body = reply.json === undefined ? (reply.text ?? '') : JSON.stringify(reply.json);
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(body);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A `POST /v1/verify` answer in the shape the emulator gives. */
export function createdReply(token: string, baseUrl = 'https://verify.example.com'): Reply {
  return {
    status: 201,
    json: {
      token,
      verify_url: `${baseUrl}/verify/${token}`,
      status: 'pending',
      external_user_id: 'user-1',
      expires_at: '2030-01-01T00:00:00.000Z',
    },
  };
}

/** The result fields of a completed session, as the emulator gives them. */
export const RESULT_FIELDS = {
  status: 'verified',
  confidence: 0.97,
  livenessPassed: true,
  duplicate: false,
  risk: 'low',
  reason: null,
  frontImageUrl: 'https://images.example.com/front.jpg?sig=abc',
} as const;
