// `faceverify-relay`: the relay as a process. Configured by environment variables (and the
// JSON file FACEVERIFY_RELAY_CONFIG names); stops cleanly on SIGTERM or SIGINT.
import { FaceverifyError } from '@faceverify/core';
import { loadRelayConfig } from './config.js';
import { startRelay } from './relay.js';
import { readSettings } from './settings.js';

const log = (message: string) => console.error(`faceverify-relay: ${message}`);

/** Why the relay could not start, without a value of a setting (it may be a secret). */
function startFailure(error: unknown): string {
  if (error instanceof FaceverifyError) return error.message;
  const code = (error as { code?: unknown } | null)?.code;
  return `starting failed (${typeof code === 'string' ? code : error instanceof Error ? error.name : 'error'}).`;
}

async function main(): Promise<void> {
  let relay: Awaited<ReturnType<typeof startRelay>>;
  try {
    const config = loadRelayConfig(readSettings(process.env));
    relay = await startRelay(config, log);
    console.log(
      `faceverify-relay: webhook at ${relay.webhookUrl}, internal API at ${relay.apiUrl}, sinks: ${config.sinks.map((sink) => sink.kind).join(', ')}, store: ${config.store.kind}`,
    );
  } catch (error) {
    log(startFailure(error));
    process.exitCode = 1;
    return;
  }
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      log(`${signal} again: exiting now; deliveries cut short are retried after their lease.`);
      process.exit(1);
    }
    signalled = true;
    log(`${signal}: stopping (new requests refused, those under way finished).`);
    relay.stop().then(
      (clean) => {
        log(
          clean
            ? 'stopped.'
            : 'stopped after the shutdown bound; cut deliveries are retried after their lease.',
        );
        process.exit(clean ? 0 : 1);
      },
      (error: unknown) => {
        log(startFailure(error));
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

await main();
