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

/** What an integrator needs to copy once the emulator runs, with the control endpoints. */
export function renderBanner(emulator: Emulator): string {
  const faults = JSON.stringify(emulator.faults());
  const control =
    emulator.controlToken === null
      ? ''
      : `\n  Control token    ${emulator.controlToken}\n  (send it to /__emulator/* as Authorization: Bearer <token>)`;
  // FACEVERIFY_* configure one account: say which, when there are named ones.
  const whose = defaultAccountAlone(emulator.accounts)
    ? ''
    : ` (account ${emulator.accounts[0]?.id})`;
  return `faceverify emulator ${EMULATOR_VERSION} is running.

  Base URL         ${emulator.url}
${accountsSection(emulator.accounts)}${control}

Environment for your application${whose}:
  FACEVERIFY_BASE_URL=${emulator.url}
  FACEVERIFY_API_KEY=${emulator.apiKey}
  FACEVERIFY_WEBHOOK_SECRET=${emulator.signingSecret}
  FACEVERIFY_POLL_SCHEDULE_MS=${DEVELOPMENT_POLL_SCHEDULE_MS}
(The last line polls a session ${DEVELOPMENT_POLL_SCHEDULE_MS.split(',')[0]} ms after its start instead of 60 s, so a dropped
webhook is recovered while you watch; leave it out in production.)
${faults === '{}' ? '' : `\nFaults: ${faults}\n`}
Inspector: ${emulator.url}/__emulator/inspector (sessions, every webhook attempt, resend, faults)
Control: ${emulator.url}/__emulator/stats, /__emulator/faults, /__emulator/settings
Press Ctrl+C to stop.
`;
}
