import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Where `captureRawBody` keeps the bytes. A registered symbol, so the ESM and CommonJS
 * builds of this package, if both get loaded, still find each other's captures.
 */
const CAPTURED = Symbol.for('@faceverify/express.rawBody');

interface CapturedBody {
  bytes: Uint8Array;
  /** The request's Content-Encoding: a body parser hands over the body decompressed. */
  contentEncoding: string | undefined;
}

/**
 * Keeps the exact request body a body parser read, so `verificationWebhook()` can check
 * its signature after `express.json()` ran. Pass it as the parser's `verify` option; the
 * bytes are stored on the request under a non-enumerable symbol.
 *
 * @example
 * app.use(express.json({ verify: captureRawBody }));
 * app.use(verificationWebhook());
 */
export function captureRawBody(req: IncomingMessage, _res: ServerResponse, body: Buffer): void {
  const captured: CapturedBody = { bytes: body, contentEncoding: req.headers['content-encoding'] };
  Object.defineProperty(req, CAPTURED, { value: captured, configurable: true });
}

/** What `captureRawBody` kept for this request, if it ran. */
export function capturedBody(req: IncomingMessage): CapturedBody | undefined {
  return (req as unknown as Record<symbol, CapturedBody | undefined>)[CAPTURED];
}
