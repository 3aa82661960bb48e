import type { HttpBindings } from '@hono/node-server';

/** What the emulator's handlers find on the Hono context. */
export interface AppEnv {
  Bindings: HttpBindings;
  Variables: {
    /**
     * Which configured API key authenticated the request, as `<account>/key-1`,
     * `<account>/key-2`…, never the key.
     */
    apiKeyId: string;
    /** The id of the account whose API key authenticated the request. */
    accountId: string;
    /** The request body, read once by `readBody` (chunked or not). */
    body: Uint8Array;
  };
}
