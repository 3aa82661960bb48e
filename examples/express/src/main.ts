import { FaceverifyError } from '@faceverify/core';
import { startServer } from './server.js';

const port = Number(process.env.PORT ?? 3000);
try {
  const server = await startServer({
    port,
    ...(process.env.APP_URL ? { publicUrl: process.env.APP_URL } : {}),
  });
  console.log(`faceverify Express example on ${server.url}

  Webhook   POST ${server.url}/webhooks/verification
  Start     curl -X POST ${server.url}/verifications -H 'content-type: application/json' -d '{"userId":"alice"}'
  Result    curl ${server.url}/verifications/alice
  Health    curl ${server.url}/health
  Metrics   curl ${server.url}/metrics

Press Ctrl+C to stop.`);
  const stop = () => {
    server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (error) {
  // A faceverify error says what to fix (a variable unset, an API key refused, the service
  // not answering at FACEVERIFY_BASE_URL): its message, without a stack trace, is the answer.
  if (!(error instanceof FaceverifyError)) throw error;
  console.error(`${error.message}

Is the emulator running? Start it in another terminal with
  npx faceverify-emulator --callback-url http://127.0.0.1:${port}/webhooks/verification
and export the FACEVERIFY_* variables it prints.`);
  process.exit(1);
}
