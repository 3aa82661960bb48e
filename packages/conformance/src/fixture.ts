import {
  createReceiver,
  MemoryStore,
  type Receiver,
  type ReceiverOptions,
  type VerificationCompletedEvent,
  type WebhookSecrets,
} from '@faceverify/core';

export const SECRET = 'whsec_conformance_current_5a1f0c';
export const OLD_SECRET = 'whsec_conformance_previous_9c3e7b';
/** Small enough that "ten times the limit" stays a quick test. */
export const LIMIT = 64 * 1024;

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields: Record<string, unknown>;
}

/** What handlers do in a case. */
export type HandlerBehaviour =
  | { kind: 'record' }
  | { kind: 'throw' }
  /** Runs until the case calls `fixture.release()`: slow for as long as the case needs. */
  | { kind: 'held' };

export interface FixtureOptions {
  secret?: WebhookSecrets;
  handler?: HandlerBehaviour;
  /** Register the handler through the middleware's `.on` instead of the receiver's. */
  registerLater?: boolean;
  receiver?: Partial<ReceiverOptions>;
  /**
   * A Receiver of several accounts: each account's id and signing secret. Replaces `secret`;
   * the accounts' API clients point at a closed port, and untracked webhooks are delivered
   * (no session is started in these cases, so none is confirmed with the service).
   */
  accounts?: Record<string, WebhookSecrets>;
}

/** A receiver whose handler calls, errors and log lines a case can inspect. */
export interface Fixture {
  receiver: Receiver;
  events: VerificationCompletedEvent[];
  /** Handler runs that finished (held handlers finish after the answer). */
  finished: VerificationCompletedEvent[];
  /** Lets every held handler run finish. */
  release: () => void;
  logs: LogLine[];
  /** Every secret the receiver knows: none may appear in an answer or a log line. */
  secrets: string[];
  handler: (event: VerificationCompletedEvent) => Promise<void>;
}

function secretStrings(secret: WebhookSecrets): string[] {
  const list = typeof secret === 'string' ? [secret] : secret;
  return list.map((entry) => (typeof entry === 'string' ? entry : entry.secret));
}

/** The token key of a Receiver of several accounts, which cannot derive it from one secret. */
const TOKEN_KEY = 'conformance-token-key-0123456789abcdef';

/** The options that make the Receiver serve `accounts`, or the one account of `secret`. */
function accountOptions(
  secret: WebhookSecrets,
  accounts: Record<string, WebhookSecrets> | undefined,
): Partial<ReceiverOptions> {
  if (!accounts) return { secret, client: false };
  return {
    tokenKeys: [TOKEN_KEY],
    untrackedWebhooks: 'deliver',
    accounts: Object.fromEntries(
      Object.entries(accounts).map(([id, accountSecret]) => [
        id,
        {
          secret: accountSecret,
          client: { apiKey: `fv_test_${id}`, baseUrl: 'http://127.0.0.1:9' },
        },
      ]),
    ),
  };
}

export function createFixture(options: FixtureOptions = {}): Fixture {
  const secret = options.secret ?? SECRET;
  const behaviour = options.handler ?? { kind: 'record' };
  const logs: LogLine[] = [];
  const write =
    (level: LogLine['level']) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      logs.push({ level, message, fields });
    };
  const receiver = createReceiver({
    ...accountOptions(secret, options.accounts),
    store: new MemoryStore(),
    maxBodyBytes: LIMIT,
    logger: {
      debug: write('debug'),
      info: write('info'),
      warn: write('warn'),
      error: write('error'),
    },
    ...options.receiver,
  });
  const events: VerificationCompletedEvent[] = [];
  const finished: VerificationCompletedEvent[] = [];
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const handler = async (event: VerificationCompletedEvent) => {
    events.push(event);
    if (behaviour.kind === 'throw') throw new Error('the handler failed on purpose');
    if (behaviour.kind === 'held') await released;
    finished.push(event);
  };
  if (!options.registerLater) receiver.on('verification.completed', handler);
  return {
    receiver,
    events,
    finished,
    release,
    logs,
    secrets: options.accounts
      ? Object.values(options.accounts).flatMap(secretStrings)
      : secretStrings(secret),
    handler,
  };
}
