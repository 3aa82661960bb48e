/**
 * What one instance is configured with: its signing secrets and token keys in the order
 * `FACEVERIFY_WEBHOOK_SECRET` and `FACEVERIFY_TOKEN_KEYS` would list them (the first key keys
 * and hashes new sessions; every listed one opens and finds).
 */
export interface InstanceConfiguration {
  secrets: string[];
  tokenKeys?: string[];
}

export const SECRET_1 = 'whsec_simulation_first_0123456789abcdef';
export const SECRET_2 = 'whsec_simulation_second_0123456789abcdef';
export const TOKEN_KEY_1 = 'tk_simulation_first_0123456789abcdefghijklmnop';
export const TOKEN_KEY_2 = 'tk_simulation_second_0123456789abcdefghijklmnop';

/**
 * A rotation as docs/polling-and-stores.md gives its steps: each step is rolled out one
 * instance at a time (each instance restarts with it), and the next step starts only once
 * every instance runs the previous one and the wait the docs ask for has passed.
 */
export interface Rotation {
  name: string;
  steps: Array<{
    configuration: InstanceConfiguration;
    /** The service signs with this secret once this step runs on every instance. */
    serviceSecret?: string;
    /** The docs' wait before this step may begin, after the previous one finished. */
    waitMs: number;
  }>;
  initial: InstanceConfiguration;
}

const LIFETIME_MS = 30 * 60_000;

/**
 * The rotations of the docs. A key that new sessions would be keyed and hashed under is added
 * last first (nothing is keyed under it yet, every instance can already open with it), moved
 * first once every instance lists it, and the old one removed one session lifetime later.
 * The signing secret beside dedicated token keys keys nothing, so it may come first at once.
 */
export const ROTATIONS: readonly Rotation[] = [
  {
    name: 'none',
    initial: { secrets: [SECRET_1] },
    steps: [],
  },
  {
    // Token keys derived from the signing secrets: the secret is a key, so three steps.
    name: 'signing secret',
    initial: { secrets: [SECRET_1] },
    steps: [
      { configuration: { secrets: [SECRET_1, SECRET_2] }, waitMs: 0 },
      { configuration: { secrets: [SECRET_2, SECRET_1] }, serviceSecret: SECRET_2, waitMs: 0 },
      { configuration: { secrets: [SECRET_2] }, waitMs: LIFETIME_MS },
    ],
  },
  {
    name: 'signing secret beside token keys',
    initial: { secrets: [SECRET_1], tokenKeys: [TOKEN_KEY_1] },
    steps: [
      {
        configuration: { secrets: [SECRET_2, SECRET_1], tokenKeys: [TOKEN_KEY_1] },
        serviceSecret: SECRET_2,
        waitMs: 0,
      },
      { configuration: { secrets: [SECRET_2], tokenKeys: [TOKEN_KEY_1] }, waitMs: LIFETIME_MS },
    ],
  },
  {
    // The signing secret, which keyed everything so far, is the old key: listed first among
    // the token keys with the new key last, then moved last, then left out of the token keys
    // (it stays the signing secret, which opens what it sealed but finds no user).
    name: 'first token key',
    initial: { secrets: [SECRET_1] },
    steps: [
      { configuration: { secrets: [SECRET_1], tokenKeys: [SECRET_1, TOKEN_KEY_1] }, waitMs: 0 },
      { configuration: { secrets: [SECRET_1], tokenKeys: [TOKEN_KEY_1, SECRET_1] }, waitMs: 0 },
      {
        configuration: { secrets: [SECRET_1], tokenKeys: [TOKEN_KEY_1] },
        waitMs: LIFETIME_MS,
      },
    ],
  },
  {
    name: 'token key',
    initial: { secrets: [SECRET_1], tokenKeys: [TOKEN_KEY_1] },
    steps: [
      { configuration: { secrets: [SECRET_1], tokenKeys: [TOKEN_KEY_1, TOKEN_KEY_2] }, waitMs: 0 },
      { configuration: { secrets: [SECRET_1], tokenKeys: [TOKEN_KEY_2, TOKEN_KEY_1] }, waitMs: 0 },
      { configuration: { secrets: [SECRET_1], tokenKeys: [TOKEN_KEY_2] }, waitMs: LIFETIME_MS },
    ],
  },
];

/**
 * The same rotations in the order the docs gave before: the new key added first at once.
 * Not drawn by seeds: kept to show what the invariants say of it (an instance still without
 * the new key finds no session an updated instance keyed, so its webhook is `untracked`).
 */
export const TWO_STEP_ROTATIONS: readonly Rotation[] = [
  {
    name: 'signing secret, new first at once',
    initial: { secrets: [SECRET_1] },
    steps: [
      { configuration: { secrets: [SECRET_2, SECRET_1] }, serviceSecret: SECRET_2, waitMs: 0 },
      { configuration: { secrets: [SECRET_2] }, waitMs: LIFETIME_MS },
    ],
  },
  {
    name: 'first token key, set at once',
    initial: { secrets: [SECRET_1] },
    steps: [{ configuration: { secrets: [SECRET_1], tokenKeys: [TOKEN_KEY_1] }, waitMs: 0 }],
  },
  {
    // The order the docs gave when every listed key was also looked up by user: the signing
    // secret left out of the token keys once the new key was first, at once.
    name: 'first token key, the secret left out at once',
    initial: { secrets: [SECRET_1] },
    steps: [
      { configuration: { secrets: [SECRET_1], tokenKeys: [SECRET_1, TOKEN_KEY_1] }, waitMs: 0 },
      { configuration: { secrets: [SECRET_1], tokenKeys: [TOKEN_KEY_1] }, waitMs: 0 },
    ],
  },
  {
    name: 'token key, new first at once',
    initial: { secrets: [SECRET_1], tokenKeys: [TOKEN_KEY_1] },
    steps: [
      { configuration: { secrets: [SECRET_1], tokenKeys: [TOKEN_KEY_2, TOKEN_KEY_1] }, waitMs: 0 },
      { configuration: { secrets: [SECRET_1], tokenKeys: [TOKEN_KEY_2] }, waitMs: LIFETIME_MS },
    ],
  },
];

/** A secret or key by its short name: S1, S2, K1, K2. */
export function nameOf(value: string): string {
  return value === SECRET_1
    ? 'S1'
    : value === SECRET_2
      ? 'S2'
      : value === TOKEN_KEY_1
        ? 'K1'
        : 'K2';
}

export function describeConfiguration(configuration: InstanceConfiguration): string {
  const name = nameOf;
  const secrets = configuration.secrets.map(name).join(',');
  return configuration.tokenKeys
    ? `secrets=${secrets} tokenKeys=${configuration.tokenKeys.map(name).join(',')}`
    : `secrets=${secrets}`;
}
