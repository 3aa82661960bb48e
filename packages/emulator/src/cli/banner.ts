import type { EmulatorAccountInfo } from '../accounts/account-handle.js';
import { DEFAULT_ACCOUNT_ID } from '../accounts/resolve-accounts.js';
import type { Emulator } from '../start-emulator.js';
import { EMULATOR_VERSION } from '../version.js';

/**
 * The poll schedule the banner prints for development: a webhook dropped on this machine shows
 * up within seconds. The docs' "about 5 s later" is checked against its first delay.
 */
export const DEVELOPMENT_POLL_SCHEDULE_MS = '5000,10000,30000';

/** A `label   value` line, values lined up whatever the indent. */
function field(indent: number, label: string, value: string): string {
  return `${' '.repeat(indent)}${label.padEnd(17)}${value}`;
}

/** An account's keys, secret and callback URL; `unsetHint` says how to set a missing URL. */
function credentialLines(account: EmulatorAccountInfo, indent: number, unsetHint: string) {
  const keys =
    account.apiKeys.length === 1
      ? [field(indent, 'API key', account.apiKey)]
      : account.apiKeys.map((key, index) => field(indent, `API key ${index + 1}`, key));
  return [
    ...keys,
    field(indent, 'Signing secret', account.signingSecret),
    field(indent, 'Callback URL', account.callbackUrl ?? `not set: ${unsetHint}`),
  ].join('\n');
}

/** The one account of the single-account flags, when it is all the emulator serves. */
function defaultAccountAlone(
  accounts: readonly EmulatorAccountInfo[],
): EmulatorAccountInfo | undefined {
  const [only] = accounts;
  return accounts.length === 1 && only?.id === DEFAULT_ACCOUNT_ID ? only : undefined;
}

/** The credentials: unlabelled for the default account alone, else by account. */
function accountsSection(accounts: readonly EmulatorAccountInfo[]): string {
  const alone = defaultAccountAlone(accounts);
  if (alone) return credentialLines(alone, 2, 'use --callback-url or PUT /__emulator/settings');
  const blocks = accounts.map((account) => {
    const hint =
      `use --account ${account.id}=<url> ` + `or PUT /__emulator/settings?account=${account.id}`;
    return `  Account ${account.id}\n${credentialLines(account, 4, hint)}`;
  });
  return `\n${blocks.join('\n')}`;
}

/** The `FACEVERIFY_*` lines of an application of `account`, the poll schedule last. */
function environmentLines(url: string, account: EmulatorAccountInfo): string {
  return `  FACEVERIFY_BASE_URL=${url}
  FACEVERIFY_API_KEY=${account.apiKey}
  FACEVERIFY_WEBHOOK_SECRET=${account.signingSecret}
  FACEVERIFY_POLL_SCHEDULE_MS=${DEVELOPMENT_POLL_SCHEDULE_MS}`;
}

const FIRST_POLL = `${DEVELOPMENT_POLL_SCHEDULE_MS.split(',')[0]} ms`;

/**
 * The variables to copy: those of the one account, or one block per account, each for an
 * application of that account (`FACEVERIFY_*` configure a Receiver of one account).
 */
function environmentSection(emulator: Emulator): string {
  const alone = defaultAccountAlone(emulator.accounts);
  if (alone) {
    return `Environment for your application:
${environmentLines(emulator.url, alone)}
(The last line polls a session ${FIRST_POLL} after its start instead of 60 s, so a dropped
webhook is recovered while you watch; leave it out in production.)`;
  }
  const blocks = emulator.accounts.map(
    (account) =>
      `Environment for an application of account ${account.id}:\n${environmentLines(emulator.url, account)}`,
  );
  return `${blocks.join('\n')}
(The last line of each polls a session ${FIRST_POLL} after its start instead of 60 s, so a
dropped webhook is recovered while you watch; leave it out in production. One Receiver of
several accounts takes each account's API key and signing secret in its \`accounts\` option
instead, and a key of its own in FACEVERIFY_TOKEN_KEYS: see docs/accounts.md.)`;
}

/** What an integrator needs to copy once the emulator runs, with the control endpoints. */
export function renderBanner(emulator: Emulator): string {
  const faults = JSON.stringify(emulator.faults());
  const control =
    emulator.controlToken === null
      ? ''
      : `\n  Control token    ${emulator.controlToken}\n  (send it to /__emulator/* as Authorization: Bearer <token>)`;
  return `faceverify emulator ${EMULATOR_VERSION} is running.

  Base URL         ${emulator.url}
${accountsSection(emulator.accounts)}${control}

${environmentSection(emulator)}
${faults === '{}' ? '' : `\nFaults: ${faults}\n`}
Inspector: ${emulator.url}/__emulator/inspector (sessions, every webhook attempt, resend, faults)
Control: ${emulator.url}/__emulator/stats, /__emulator/faults, /__emulator/settings, /__emulator/signing-secret
Press Ctrl+C to stop.
`;
}
