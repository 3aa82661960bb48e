/**
 * What `raw_body_unavailable` tells the developer; the Receiver logs each once. Every hint
 * names the concrete fix, and none repeats request data (a sender must not be able to fill
 * the log or inject text into it).
 */
export const HINTS = {
  parsedFirst:
    'A body parser such as express.json() ran before verificationWebhook() and consumed the request body: mount verificationWebhook() before body parsers, or use express.json({ verify: captureRawBody }).',
  streamTaken:
    'Another middleware started reading the request body before verificationWebhook(): mount verificationWebhook() before it.',
  decoded:
    'The request was sent with a Content-Encoding and a body parser decompressed it before verificationWebhook() ran, so the bytes as sent are gone: mount verificationWebhook() before body parsers.',
} as const;
