/** One command-line flag, and the environment variable that sets it when the flag is absent. */
export interface FlagSpec {
  /** Name without the leading `--`. */
  name: string;
  /** Placeholder of its value in the help, or `null` for a flag that takes none. */
  value: string | null;
  /** The value may be left out (fault triggers, which then mean "always"). */
  optionalValue?: true;
  /** May be given more than once; its environment variable then holds a comma-separated list. */
  repeatable?: true;
  env: string | null;
  description: string;
}

const ENV = 'FACEVERIFY_EMULATOR_';

/** Port the CLI listens on when none is given: fixed, so an application's settings can stay put. */
export const DEFAULT_CLI_PORT = 4010;

const WHEN =
  'WHEN is "always" (the default), a probability such as 0.2, or next:N for the next N events.';

/** Every flag the CLI knows; the help and the parser are both generated from this list. */
export const FLAGS: readonly FlagSpec[] = [
  {
    name: 'port',
    value: '<port>',
    env: `${ENV}PORT`,
    description: `Port to listen on; 0 picks a free one. Default ${DEFAULT_CLI_PORT}.`,
  },
  {
    name: 'host',
    value: '<address>',
    env: `${ENV}HOST`,
    description: 'Address to listen on. Default 127.0.0.1 (this machine only).',
  },
  {
    name: 'public-url',
    value: '<url>',
    env: `${ENV}PUBLIC_URL`,
    description:
      'Base URL to announce in verify_url and image links, when the emulator is reached ' +
      'through a proxy or a container port. Default: the address it listens on.',
  },
  {
    name: 'allowed-host',
    value: '<host[:port]>',
    repeatable: true,
    env: `${ENV}ALLOWED_HOSTS`,
    description:
      'Another Host name to answer to, such as a container name; repeat for several. Its own ' +
      'address, localhost, 127.0.0.1, [::1] and the --public-url host are always accepted.',
  },
  {
    name: 'control-token',
    value: '<token>',
    env: `${ENV}CONTROL_TOKEN`,
    description:
      'Token the /__emulator control endpoints require (Authorization: Bearer). Default: ' +
      'generated when --host is beyond this machine, none on loopback.',
  },
  {
    name: 'callback-url',
    value: '<url>',
    env: `${ENV}CALLBACK_URL`,
    description:
      'Where webhooks are POSTed. Can be changed while running with PUT /__emulator/settings. ' +
      'Default: none (no webhook is sent).',
  },
  {
    name: 'api-key',
    value: '<key>',
    repeatable: true,
    env: `${ENV}API_KEYS`,
    description:
      'An accepted API key; repeat the flag for several keys, each with its own rate limit. ' +
      'Default: one generated fv_test_ key.',
  },
  {
    name: 'signing-secret',
    value: '<secret>',
    env: `${ENV}SIGNING_SECRET`,
    description: 'Webhook signing secret. Default: a generated whsec_ secret.',
  },
  {
    name: 'account',
    value: '<id[=url]>',
    repeatable: true,
    env: `${ENV}ACCOUNTS`,
    description:
      'Serve an account with this id (letters, digits, _ and -), a generated API key and ' +
      'signing secret, and its webhooks POSTed to url when given; repeat for several accounts. ' +
      'Replaces --api-key, --signing-secret and --callback-url. Default: one account.',
  },
  {
    name: 'session-ttl',
    value: '<duration>',
    env: `${ENV}SESSION_TTL`,
    description: 'Lifetime of a session token. Default 15m.',
  },
  {
    name: 'image-url-ttl',
    value: '<duration>',
    env: `${ENV}IMAGE_URL_TTL`,
    description: 'Lifetime of a signed front image link. Default 15m.',
  },
  {
    name: 'webhook-timeout',
    value: '<duration>',
    env: `${ENV}WEBHOOK_TIMEOUT`,
    description: 'How long a webhook receiver may take to answer. Default 5s.',
  },
  {
    name: 'verify-limit',
    value: '<count>',
    env: `${ENV}VERIFY_LIMIT`,
    description: 'POST /v1/verify requests allowed per API key and window. Default 60.',
  },
  {
    name: 'verify-window',
    value: '<duration>',
    env: `${ENV}VERIFY_WINDOW`,
    description: 'Sliding window of --verify-limit. Default 1m.',
  },
  {
    name: 'complete-limit',
    value: '<count>',
    env: `${ENV}COMPLETE_LIMIT`,
    description:
      'POST /v1/sessions/:token/complete requests allowed per client IP and window. Default 20.',
  },
  {
    name: 'complete-window',
    value: '<duration>',
    env: `${ENV}COMPLETE_WINDOW`,
    description: 'Sliding window of --complete-limit. Default 1m.',
  },
  {
    name: 'drop-webhooks',
    value: '[WHEN]',
    optionalValue: true,
    env: `${ENV}DROP_WEBHOOKS`,
    description: `Fault: do not send webhooks. ${WHEN}`,
  },
  {
    name: 'duplicate-webhooks',
    value: '[WHEN]',
    optionalValue: true,
    env: `${ENV}DUPLICATE_WEBHOOKS`,
    description: `Fault: send webhooks twice, the same bytes both times. ${WHEN}`,
  },
  {
    name: 'corrupt-webhooks',
    value: '[WHEN]',
    optionalValue: true,
    env: `${ENV}CORRUPT_WEBHOOKS`,
    description: `Fault: send webhooks with a signature that does not match. ${WHEN}`,
  },
  {
    name: 'delay-webhooks-ms',
    value: '<ms>',
    env: `${ENV}DELAY_WEBHOOKS_MS`,
    description: 'Fault: hold webhooks back this many milliseconds.',
  },
  {
    name: 'delay-webhooks',
    value: '[WHEN]',
    optionalValue: true,
    env: `${ENV}DELAY_WEBHOOKS`,
    description: `Which webhooks --delay-webhooks-ms holds back. ${WHEN}`,
  },
  {
    name: 'poll-5xx',
    value: '[WHEN]',
    optionalValue: true,
    env: `${ENV}POLL_5XX`,
    description: `Fault: answer GET /v1/sessions/:token with a server error. ${WHEN}`,
  },
  {
    name: 'poll-5xx-status',
    value: '<status>',
    env: `${ENV}POLL_5XX_STATUS`,
    description: 'Status of --poll-5xx: 500, 502, 503 or 504. Default 503.',
  },
  {
    name: 'poll-429',
    value: '[WHEN]',
    optionalValue: true,
    env: `${ENV}POLL_429`,
    description: `Fault: answer GET /v1/sessions/:token with 429. ${WHEN}`,
  },
  {
    name: 'poll-429-retry-after-ms',
    value: '<ms>',
    env: `${ENV}POLL_429_RETRY_AFTER_MS`,
    description: 'The retry_after_ms of --poll-429. Default 1000.',
  },
  {
    name: 'seed',
    value: '<value>',
    env: `${ENV}SEED`,
    description:
      'Seed for fault probabilities, simulated confidence values and webhook layouts, to ' +
      'replay a run. Default: random.',
  },
  {
    name: 'quiet',
    value: null,
    env: `${ENV}QUIET`,
    description: 'Print only the startup summary, not each session and webhook.',
  },
  { name: 'help', value: null, env: null, description: 'Show this help and exit.' },
  { name: 'version', value: null, env: null, description: 'Show the version and exit.' },
];
