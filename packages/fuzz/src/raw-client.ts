import { connect } from 'node:net';

/** How one exchange ended, as seen from the client. */
export type Outcome =
  /** An HTTP answer from the adapter (a JSON body from the Receiver, or none for HEAD). */
  | { kind: 'answer'; status: number; code: string | undefined; body: string; headers: Headers }
  /** Node's HTTP parser refused the request before any adapter saw it (no body). */
  | { kind: 'parser'; status: number }
  /** An answer that is neither the Receiver's nor Node's parser's. */
  | { kind: 'foreign'; status: number; body: string; headers: Headers }
  /** The server closed the connection without answering. */
  | { kind: 'closed' }
  /** The connection was reset before an answer could be read. */
  | { kind: 'reset' }
  /** The client itself cut the connection (a truncated request), as planned. */
  | { kind: 'aborted' }
  /** No answer and no close within the time limit. */
  | { kind: 'timeout' }
  /** Bytes came back that are not an HTTP response. */
  | { kind: 'garbage'; text: string };

/** One request on its own connection: pieces written with delays, then how to finish. */
export interface Send {
  pieces: readonly Uint8Array[];
  /** Delay before each piece after the first, in ms (the last value repeats). */
  delaysMs?: readonly number[];
  /** `wait` for the answer; `destroy` the socket after the last piece; `half-close` it. */
  end: 'wait' | 'destroy' | 'half-close';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Parsed {
  status: number;
  headers: Headers;
  body: string;
}

/** Parses the last non-1xx response in `bytes` (a `100 Continue` may come first). */
function parseResponse(bytes: Buffer): Parsed | 'garbage' {
  let rest = bytes;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return 'garbage';
    const head = rest.subarray(0, end).toString('latin1').split('\r\n');
    const match = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(head[0] ?? '');
    if (!match) return 'garbage';
    const status = Number(match[1]);
    rest = rest.subarray(end + 4);
    if (status >= 100 && status < 200) continue;
    const headers = new Headers();
    for (const line of head.slice(1)) {
      const colon = line.indexOf(':');
      if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    }
    let body = rest;
    if (headers.get('transfer-encoding')?.toLowerCase() === 'chunked') body = dechunk(rest);
    return { status, headers, body: body.toString('utf8') };
  }
}

function dechunk(bytes: Buffer): Buffer {
  const out: Buffer[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const lineEnd = bytes.indexOf('\r\n', offset);
    if (lineEnd < 0) break;
    const size = Number.parseInt(bytes.subarray(offset, lineEnd).toString('latin1'), 16);
    if (!(size > 0)) break;
    out.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(out);
}

function classify(parsed: Parsed): Outcome {
  const type = parsed.headers.get('content-type') ?? '';
  if (type.startsWith('application/json')) {
    let code: string | undefined;
    try {
      const json = JSON.parse(parsed.body) as { error?: unknown; received?: unknown };
      if (typeof json.error === 'string') code = json.error;
      else if (json.received === true) code = 'received';
    } catch {
      // An empty body (HEAD) or not JSON: `code` stays unknown.
    }
    return {
      kind: 'answer',
      status: parsed.status,
      code,
      body: parsed.body,
      headers: parsed.headers,
    };
  }
  // Node's own refusal of malformed HTTP: a status line, `Connection: close`, nothing else.
  if (type === '' && parsed.body === '' && parsed.status >= 400) {
    return { kind: 'parser', status: parsed.status };
  }
  return { kind: 'foreign', status: parsed.status, body: parsed.body, headers: parsed.headers };
}

/**
 * Sends one request over a raw TCP socket to 127.0.0.1:`port` (nothing normalises it, as
 * `fetch` would) and reads the answer to the end of the connection.
 */
export function exchange(port: number, send: Send, timeoutMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setNoDelay(true);
    const received: Buffer[] = [];
    let reset = false;
    let settled = false;
    let aborted = false;
    const finish = (outcome?: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (outcome) return resolve(outcome);
      if (received.length === 0) {
        return resolve(
          aborted ? { kind: 'aborted' } : reset ? { kind: 'reset' } : { kind: 'closed' },
        );
      }
      const parsed = parseResponse(Buffer.concat(received));
      if (parsed === 'garbage') {
        if (reset || aborted) return resolve(aborted ? { kind: 'aborted' } : { kind: 'reset' });
        return resolve({
          kind: 'garbage',
          text: Buffer.concat(received).subarray(0, 120).toString('latin1'),
        });
      }
      resolve(classify(parsed));
    };
    const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') reset = true;
    });
    socket.on('close', () => finish());
    socket.once('connect', async () => {
      const delays = send.delaysMs ?? [0];
      for (let i = 0; i < send.pieces.length; i++) {
        if (socket.destroyed || socket.writableEnded) break;
        const delay = i === 0 ? 0 : (delays[Math.min(i - 1, delays.length - 1)] ?? 0);
        if (delay > 0) await sleep(delay);
        if (socket.destroyed) break;
        socket.write(send.pieces[i] as Uint8Array);
      }
      if (send.end === 'destroy') {
        // Let the bytes leave before cutting the connection, as a dropped client would.
        await sleep(2);
        aborted = true;
        finish();
      } else if (send.end === 'half-close' && !socket.destroyed) {
        socket.end();
      }
    });
  });
}

/** A short name for an outcome, used in counts: `200`, `401`, `node-400`, `closed`, ... */
export function outcomeName(outcome: Outcome): string {
  switch (outcome.kind) {
    case 'answer':
      return String(outcome.status);
    case 'parser':
      return `node-${outcome.status}`;
    case 'foreign':
      return `other-${outcome.status}`;
    default:
      return outcome.kind;
  }
}
