import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Where `captureRawBody` keeps the bytes. A registered symbol, so the ESM and CommonJS
 * builds of this package, if both get loaded, still find each other's captures.
 */
const CAPTURED = Symbol.for('@faceverify/express.rawBody');

/**
 * Keeps the exact request body a body parser read, so `verificationWebhook()` can check
 * its signature after `express.json()` ran. Pass it as the parser's `verify` option; the
 * bytes are stored on the request under a non-enumerable symbol. (A parser that
 * decompressed the body hands over other bytes: the request's Content-Encoding tells.)
 *
 * @example
 * app.use(express.json({ verify: captureRawBody }));
 * app.use(verificationWebhook());
 */
export function captureRawBody(req: IncomingMessage, _res: ServerResponse, body: Buffer): void {
  Object.defineProperty(req, CAPTURED, { value: { bytes: body }, configurable: true });
}

/** The bytes `captureRawBody` kept for this request, if it ran. */
export function capturedBody(req: IncomingMessage): Uint8Array | undefined {
  return (req as unknown as Record<symbol, { bytes: Uint8Array } | undefined>)[CAPTURED]?.bytes;
}
