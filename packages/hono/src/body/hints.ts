const FIX =
  'Mount verificationWebhook() before it, or read the body there with c.req.arrayBuffer(), which keeps the exact bytes.';

/**
 * What `raw_body_unavailable` tells the developer; the Receiver logs each once. Every hint
 * names the concrete fix, and none repeats request data.
 */
export const HINTS: {
  readonly parsedOnly: (kinds: string) => string;
  readonly unprovableText: (reason: string) => string;
  readonly rawConsumed: string;
} = {
  parsedOnly: (kinds: string) =>
    `An earlier middleware read the request body before verificationWebhook() and Hono kept only the parsed result (${kinds}), never the bytes received. ${FIX}`,
  unprovableText: (reason: string) =>
    `An earlier middleware read the request body as text (c.req.text() or c.req.json()) before verificationWebhook(), and the text is not provably the bytes received: ${reason}. ${FIX}`,
  rawConsumed: `An earlier middleware read c.req.raw directly before verificationWebhook(), so Hono kept nothing. ${FIX}`,
};
