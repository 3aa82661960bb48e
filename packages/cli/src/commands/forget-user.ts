import { parseArgs } from 'node:util';
import {
  ConfigurationError,
  checkErasureRequest,
  createReceiver,
  tokenKeyIds,
} from '@faceverify/core';
import { type CliIO, EXIT, envSecrets, envTokenKeys, usageError } from '../cli-io.js';
import { noStoreData, type OpenedStore, openStoreFor, STORE_FLAGS } from '../open-store.js';
import { printable } from '../printable.js';
import { recordKeying } from '../record-keying.js';

export const FORGET_USER_HELP = `usage: faceverify forget-user <EXTERNAL_USER_ID> [options]

Erasure: removes every record your receiver's store holds of one user (sessions open or
closed, results waiting for delivery, dead letters) in one atomic step, as
receiver.forgetUser does, and prints how many it removed. Run it again: it removes 0. It
erases what faceverify holds only: what your handlers stored is yours to erase.

EXTERNAL_USER_ID is the id your application passed as externalUserId. It is never printed.

The store is REDIS_URL (RedisStore) or DATABASE_URL (PostgresStore), from the environment.
FACEVERIFY_WEBHOOK_SECRET (and FACEVERIFY_TOKEN_KEYS, when your receiver sets it) must be
your receiver's: records are found as your receiver keys them.

A receiver of several accounts (its accounts option) keeps each account's users apart: pass
--account with the account the user is of, and FACEVERIFY_TOKEN_KEYS (which such a receiver
requires) in place of FACEVERIFY_WEBHOOK_SECRET. The same id in another account is another
user, and stays.

options:
  --account ID             the account the user is of, on a receiver of several accounts
  --store redis|postgres   which one, when both variables are set
  --prefix PREFIX          the store's prefix, when your receiver sets one
                           (RedisStore default faceverify:, PostgresStore default faceverify_)
  --schema SCHEMA          PostgresStore's schema (default public)
  -h, --help               this text

Before it erases, it looks, reading only, and fails naming the fix when it cannot find the
user's records: no faceverify data under --prefix/--schema, or records keyed under token key
ids none of your keys has (a mistyped or stale secret, wrong FACEVERIFY_TOKEN_KEYS).

exit codes: 0 done with your receiver's keys (even when there was nothing to remove), 1 no
data where the store was looked for, records keyed under keys you did not give (what could
be removed was), or the store could not be reached, 2 a usage error.`;

export async function forgetUser(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...STORE_FLAGS,
      account: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    io.out(FORGET_USER_HELP);
    return EXIT.ok;
  }
  const usage = (message: string) => usageError(io, 'forget-user', message);
  const [externalUserId, ...extra] = positionals;
  if (externalUserId === undefined || externalUserId === '' || extra.length > 0) {
    return usage('give one EXTERNAL_USER_ID, quoted if it holds spaces');
  }
  const { account } = values;
  const secrets = envSecrets(io);
  const tokenKeys = envTokenKeys(io);
  if (account !== undefined && tokenKeys.length === 0) {
    return usage(
      "--account needs FACEVERIFY_TOKEN_KEYS set to your receiver's token keys: a receiver of several accounts keys its users' records with them.",
    );
  }
  if (account === undefined && secrets.length === 0) {
    return usage(
      "set FACEVERIFY_WEBHOOK_SECRET to your receiver's signing secret(s): records are found as your receiver keys them.",
    );
  }
  try {
    checkErasureRequest(externalUserId, account);
  } catch (error) {
    // An id no store holds (a NUL, a lone surrogate, too long): the message never repeats it.
    return usage((error as Error).message);
  }
  const opened = await openStoreFor(io, 'forget-user', values, usage);
  if (typeof opened === 'number') return opened;
  try {
    return await erase(io, opened, externalUserId, account, { secrets, tokenKeys });
  } catch (error) {
    if (error instanceof ConfigurationError) {
      io.err(`faceverify forget-user: ${error.message}`);
      return EXIT.failed;
    }
    io.err(
      `faceverify forget-user: ${opened.name} failed: ${printable((error as Error).message)}. Check that ${opened.variable} points at your receiver's store and that it is reachable.`,
    );
    return EXIT.failed;
  } finally {
    await opened.close();
  }
}

/**
 * Looks before it erases, reading only: whether the store has data where it was pointed, and
 * which keys keyed its records. Erasure finds a user's records by a keyed hash of the id, so
 * a wrong prefix or schema, or keys that are not the receiver's, find nothing, which looks
 * like a user with nothing to erase. Each is told apart, without learning who the user is
 * (no record is opened or matched to anyone), and answered with a failure naming the fix.
 */
async function erase(
  io: CliIO,
  opened: OpenedStore,
  externalUserId: string,
  account: string | undefined,
  keys: { secrets: string[]; tokenKeys: string[] },
): Promise<number> {
  // A receiver of several accounts keys records with its token keys alone.
  const sources = account === undefined ? keys : { tokenKeys: keys.tokenKeys };
  const ours = await tokenKeyIds(sources, 'FACEVERIFY_TOKEN_KEYS');
  const stored = await opened.countRecords(recordKeying);
  if (!stored.found) {
    io.err(`faceverify forget-user: ${noStoreData(opened)} Nothing was removed.`);
    return EXIT.failed;
  }
  const foreign = [...stored.counts].filter(
    ([kind]) => kind.startsWith('key:') && !ours.includes(kind.slice('key:'.length)),
  );
  const foreignCount = foreign.reduce((total, [, count]) => total + count, 0);
  const findable = [...stored.counts]
    .filter(([kind]) => kind === 'clear' || ours.some((id) => kind === `key:${id}`))
    .reduce((total, [, count]) => total + count, 0);
  const keyFix = `${
    account === undefined
      ? 'Set FACEVERIFY_WEBHOOK_SECRET (and FACEVERIFY_TOKEN_KEYS, when your receiver sets it)'
      : 'Set FACEVERIFY_TOKEN_KEYS'
  } to exactly what your receiver has, in its order, and run again (records keyed under a key your receiver no longer lists either end with their retention).`;
  const foreignIds = `${foreign
    .slice(0, 5)
    .map(([kind, count]) => `${kind.slice('key:'.length)} (${counted(count, 'record')})`)
    .join(', ')}${foreign.length > 5 ? ', …' : ''}; yours: ${ours.join(', ')}`;
  if (foreignCount > 0 && findable === 0) {
    io.err(
      `faceverify forget-user: the records in ${opened.name} are keyed under token key ids none of your keys has (${foreignIds}): no record of this user can be found with your keys, and nothing was removed. ${keyFix}`,
    );
    return EXIT.failed;
  }
  // The receiver's own erasure, over the same store and keys: whatever form records name
  // the user in, this finds them as the receiver does. It polls and delivers nothing.
  const receiver = createReceiver({
    store: opened.store,
    // Erasing an account's user needs its id and the token keys, not the account's secret
    // or key: a resolver that knows no account is enough (and works for an account removed).
    ...(account === undefined
      ? { secret: keys.secrets, client: false as const }
      : { accounts: { resolve: () => undefined } }),
    ...(keys.tokenKeys.length > 0 ? { tokenKeys: keys.tokenKeys } : {}),
    logger: false,
  });
  const { removed } = await receiver.forgetUser(
    externalUserId,
    account === undefined ? undefined : { account },
  );
  io.out(
    `Removed ${counted(removed, 'record')} of that user${account === undefined ? '' : ` of account ${account}`} from ${opened.name}.`,
  );
  if (foreignCount > 0) {
    io.err(
      `faceverify forget-user: ${counted(foreignCount, 'more record')} in ${opened.name} ${foreignCount === 1 ? 'is' : 'are'} keyed under token key ids none of your keys has (${foreignIds}): whatever of this user's is among them was not removed. ${keyFix}`,
    );
    return EXIT.failed;
  }
  if (removed === 0 && findable === 0) {
    io.err(
      `faceverify forget-user: none of the records in ${opened.name} tells which key keyed it (sessions that closed without a result), so whether your keys are your receiver's cannot be told. ${keyFix}`,
    );
    return EXIT.failed;
  }
  return EXIT.ok;
}

/** `count` and `noun`, plural but for one: "1 record", "2 records". */
function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
