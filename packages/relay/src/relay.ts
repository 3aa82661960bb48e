import { createClient, createReceiver, FaceverifyError, type Receiver } from '@faceverify/core';
import { verificationWebhook } from '@faceverify/fetch';
import type { RelayConfig } from './config.js';
import { internalApi } from './internal-api.js';
import { SinkCounters } from './metrics.js';
import { type OpenedSink, openSinks } from './open-sinks.js';
import { openStore } from './open-store.js';
import { RelayConfigError } from './relay-config-error.js';
import { type FetchServer, serveFetch } from './serve-fetch.js';

/** A running relay. */
export interface Relay {
  /** Where the webhook is received, e.g. `http://0.0.0.0:8080/webhooks/verification`. */
  readonly webhookUrl: string;
  /** The internal API's address, e.g. `http://127.0.0.1:8081`. */
  readonly apiUrl: string;
  /** The Receiver the relay runs. */
  readonly receiver: Receiver<unknown>;
  /**
   * Stops cleanly: no new request is accepted, those under way are answered, the sweep in
   * progress ends, then the sinks and the store are closed, all within `shutdownMs` (after
   * which open connections are cut). Resolves whether everything ended in time. A delivery
   * cut short is not lost: its lease runs out and this relay, or another, retries it.
   */
  stop(): Promise<boolean>;
}

/** Where the relay reports what it does: its own lines, never a secret or a result. */
export type RelayLog = (message: string) => void;

/**
 * Starts a relay: opens the store and the sinks, registers each sink as a
 * `verification.completed` handler (the PostgreSQL outbox in the delivery's transaction),
 * serves the webhook and the internal API, and starts polling for lost webhooks.
 *
 * @example
 * const relay = await startRelay(loadRelayConfig(readSettings()));
 * process.once('SIGTERM', () => void relay.stop());
 */
export async function startRelay(
  config: RelayConfig,
  log: RelayLog = () => undefined,
): Promise<Relay> {
  // A wrong API key or base URL fails here, naming the variable, before the store is opened
  // (a new PGlite data folder takes seconds to create) and not at the first user.
  const client = createClient(config.api);
  await client.check();
  const opened = await openStore(config.store).catch((error: unknown) => {
    throw unreachable(error, 'FACEVERIFY_STORE_URL', 'The store could not be opened');
  });
  let sinks: OpenedSink[] = [];
  const servers: FetchServer[] = [];
  try {
    sinks = await openSinks(config.sinks, opened);
    const receiver = createReceiver({
      secret: config.webhookSecrets,
      client,
      store: opened.store,
      untrackedWebhooks: config.untrackedWebhooks,
      ...config.tuning,
    }) as Receiver<unknown>;
    const counters = new SinkCounters();
    for (const sink of sinks) {
      const handler: OpenedSink['handler'] = async (event, context) => {
        try {
          await sink.handler(event, context);
        } catch (error) {
          counters.record(sink.kind, 'failed');
          throw error;
        }
        counters.record(sink.kind, 'delivered');
      };
      if (sink.transactional) {
        receiver.on('verification.completed', handler as never, { transactional: true });
      } else {
        receiver.on('verification.completed', handler as never);
      }
    }
    const webhook = verificationWebhook(receiver);
    const reportServerError = (error: unknown) =>
      log(`a request failed inside the relay: ${error instanceof Error ? error.name : 'error'}`);
    const webhookServer = await serveFetch(
      async (request) =>
        new URL(request.url).pathname === config.webhook.path
          ? webhook(request)
          : new Response('Not found', { status: 404 }),
      config.webhook.host,
      config.webhook.port,
      reportServerError,
    );
    servers.push(webhookServer);
    const apiServer = await serveFetch(
      internalApi({ receiver, token: config.internalApi.token, sinks: counters }),
      config.internalApi.host,
      config.internalApi.port,
      reportServerError,
    );
    servers.push(apiServer);
    receiver.start();
    let stopping: Promise<boolean> | undefined;
    return {
      webhookUrl: `${webhookServer.url}${config.webhook.path}`,
      apiUrl: apiServer.url,
      receiver,
      stop: () => {
        stopping ??= stop(config.shutdownMs, servers, receiver, sinks, opened.close);
        return stopping;
      },
    };
  } catch (error) {
    await Promise.allSettled(servers.map((server) => server.close(0)));
    await Promise.allSettled(sinks.map((sink) => sink.close()));
    await opened.close().catch(() => undefined);
    throw error;
  }
}

/** A store or sink that did not answer at start, named by its setting, without its URL. */
function unreachable(error: unknown, setting: string, what: string): RelayConfigError {
  // The store's own errors name the host and port, never the password; a client's may hold
  // the whole URL, so only its code is told.
  const reason =
    error instanceof FaceverifyError
      ? error.message.replace(/\.?$/, '.')
      : `${(error as { code?: unknown } | null)?.code ?? 'error'}.`;
  return new RelayConfigError(
    setting,
    `${what}: ${reason} Check ${setting} and that the server is up.`,
  );
}

async function stop(
  boundMs: number,
  servers: FetchServer[],
  receiver: Receiver<unknown>,
  sinks: OpenedSink[],
  closeStore: () => Promise<void>,
): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  const left = () => Math.max(0, deadline - Date.now());
  const answered = await Promise.all(servers.map((server) => server.close(left())));
  const swept = await Promise.race([
    receiver.stop().then(() => true),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), left()).unref()),
  ]);
  await Promise.allSettled(sinks.map((sink) => sink.close()));
  await closeStore().catch(() => undefined);
  return answered.every(Boolean) && swept;
}
