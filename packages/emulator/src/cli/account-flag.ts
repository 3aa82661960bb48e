import type { EmulatorAccountOptions } from '../options.js';
import { CliUsageError } from './cli-usage-error.js';
import type { FlagValues } from './parse-args.js';

/** The flags of the single account, which `--account` replaces. */
const SINGLE_ACCOUNT_FLAGS = ['api-key', 'signing-secret', 'callback-url'];

/**
 * Reads one `--account <id[=callback-url]>`: an account whose API key and signing secret are
 * generated. Its id is checked by `startEmulator`, like every option.
 */
export function parseAccountFlag(text: string): EmulatorAccountOptions {
  const equals = text.indexOf('=');
  if (equals === -1) return { id: text.trim() };
  return { id: text.slice(0, equals).trim(), callbackUrl: text.slice(equals + 1).trim() };
}

/**
 * The accounts `--account` declares, or `undefined` for the single account of `--api-key`,
 * `--signing-secret` and `--callback-url`.
 *
 * @throws CliUsageError when both are given.
 */
export function accountsFrom(values: FlagValues): EmulatorAccountOptions[] | undefined {
  const declared = values.get('account');
  if (declared === undefined) return undefined;
  const single = SINGLE_ACCOUNT_FLAGS.filter((name) => values.has(name));
  if (single.length > 0) {
    throw new CliUsageError(
      `--account cannot be combined with ${single.map((name) => `--${name}`).join(', ')} ` +
        '(as a flag or its environment variable): each account gets a generated API key and ' +
        'signing secret; give its callback URL as --account <id>=<url>.',
    );
  }
  return declared.map(parseAccountFlag);
}
