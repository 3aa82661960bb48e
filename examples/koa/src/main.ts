import { ConfigurationError } from '@faceverify/core';
import { startServer } from './server.js';

try {
  const server = await startServer({
    port: Number(process.env.PORT ?? 3000),
    ...(process.env.APP_URL ? { publicUrl: process.env.APP_URL } : {}),
  });
  console.log(`faceverify Koa example on ${server.url}

  Webhook   POST ${server.url}/webhooks/verification
  Start     curl -X POST ${server.url}/verifications -H 'content-type: application/json' -d '{"userId":"alice"}'
  Result    curl ${server.url}/verifications/alice

Press Ctrl+C to stop.`);
  const stop = () => {
    server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (error) {
  if (!(error instanceof ConfigurationError)) throw error;
  console.error(`${error.message}

Start the emulator with
  npx faceverify-emulator --callback-url http://127.0.0.1:3000/webhooks/verification
and export the FACEVERIFY_* variables it prints.`);
  process.exit(1);
}
