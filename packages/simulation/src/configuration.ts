/**
 * What one instance is configured with: its signing secrets and token keys, newest first, as
 * `FACEVERIFY_WEBHOOK_SECRET` and `FACEVERIFY_TOKEN_KEYS` would list them.
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
 * A rotation as docs/security.md gives its steps: each step is rolled out one instance at a
 * time (each instance restarts with it), and the next step starts only once every instance
 * runs the previous one and the wait the docs ask for has passed.
 */
export interface Rotation {
  name: string;
  steps: Array<{
    configuration: InstanceConfiguration;
    /** The service signs with this secret from the moment this step begins. */
    serviceSecret?: string;
    /** The docs' wait before this step may begin, after the previous one finished. */
    waitMs: number;
  }>;
  initial: InstanceConfiguration;
}

const LIFETIME_MS = 30 * 60_000;

export const ROTATIONS: readonly Rotation[] = [
  {
    name: 'none',
    initial: { secrets: [SECRET_1] },
    steps: [],
  },
  {
    name: 'signing secret',
    initial: { secrets: [SECRET_1] },
    steps: [
      { configuration: { secrets: [SECRET_2, SECRET_1] }, waitMs: 0 },
      // The new secret is set in the service's Settings once every instance accepts it.
      { configuration: { secrets: [SECRET_2, SECRET_1] }, serviceSecret: SECRET_2, waitMs: 0 },
      { configuration: { secrets: [SECRET_2] }, waitMs: LIFETIME_MS },
    ],
  },
  {
    name: 'first token key',
    initial: { secrets: [SECRET_1] },
    steps: [{ configuration: { secrets: [SECRET_1], tokenKeys: [TOKEN_KEY_1] }, waitMs: 0 }],
  },
  {
    name: 'token key',
    initial: { secrets: [SECRET_1], tokenKeys: [TOKEN_KEY_1] },
    steps: [
      { configuration: { secrets: [SECRET_1], tokenKeys: [TOKEN_KEY_2, TOKEN_KEY_1] }, waitMs: 0 },
      { configuration: { secrets: [SECRET_1], tokenKeys: [TOKEN_KEY_2] }, waitMs: LIFETIME_MS },
    ],
  },
];

export function describeConfiguration(configuration: InstanceConfiguration): string {
  const name = (value: string) =>
    value === SECRET_1 ? 'S1' : value === SECRET_2 ? 'S2' : value === TOKEN_KEY_1 ? 'K1' : 'K2';
  const secrets = configuration.secrets.map(name).join(',');
  return configuration.tokenKeys
    ? `secrets=${secrets} tokenKeys=${configuration.tokenKeys.map(name).join(',')}`
    : `secrets=${secrets}`;
}
