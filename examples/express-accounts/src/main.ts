import { ConfigurationError } from '@faceverify/core';
import { readAccountsFile } from './accounts-file.js';
import { startServer } from './server.js';

const accountsFile = process.env.ACCOUNTS_FILE ?? 'accounts.json';

try {
  const accounts = readAccountsFile(accountsFile);
  const server = await startServer({
    accounts,
    port: Number(process.env.PORT ?? 3000),
    ...(process.env.APP_URL ? { publicUrl: process.env.APP_URL } : {}),
  });
  const lines = Object.keys(accounts).map(
    (id) => `  ${id}
    Callback URL  ${server.url}/webhooks/verification/${id}   (in ${id}'s Settings)
    Start         curl -X POST ${server.url}/accounts/${id}/verifications -H 'content-type: application/json' -d '{"userId":"alice"}'
    Result        curl ${server.url}/accounts/${id}/verifications/alice`,
  );
  console.log(`faceverify several-accounts example on ${server.url}

${lines.join('\n')}

  Health  curl ${server.url}/health

Press Ctrl+C to stop.`);
  const stop = () => {
    server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (error) {
  if (!(error instanceof ConfigurationError)) throw error;
  console.error(`${error.message}

Start the emulator with two accounts
  npx faceverify-emulator \\
    --account acme=http://127.0.0.1:3000/webhooks/verification/acme \\
    --account globex=http://127.0.0.1:3000/webhooks/verification/globex
write each account's API key and signing secret into ${accountsFile}, and export
FACEVERIFY_BASE_URL and FACEVERIFY_TOKEN_KEYS (see README.md).`);
  process.exit(1);
}
