const FIX =
  'Mount verificationWebhook() before bodyParser(): app.use(verificationWebhook()) first, or the router holding router.post(path, verificationWebhook()) before app.use(bodyParser()).';

/**
 * What `raw_body_unavailable` tells the developer; the Receiver logs each once. Every hint
 * names the concrete fix, and none repeats request data.
 */
export const HINTS: {
  readonly bodyParserText: (reason: string) => string;
  readonly streamTaken: string;
} = {
  bodyParserText: (reason: string) =>
    `A body parser (@koa/bodyparser or koa-bodyparser) read the request before verificationWebhook() and kept only its text, which is not provably the bytes received: ${reason}. ${FIX}`,
  streamTaken: `Another middleware read the request body before verificationWebhook(). ${FIX}`,
};
