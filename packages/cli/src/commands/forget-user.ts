import { parseArgs } from 'node:util';
import { createReceiver } from '@faceverify/core';
import { type CliIO, EXIT, envSecrets, envTokenKeys, usageError } from '../cli-io.js';
import { openStoreFor, STORE_FLAGS } from '../open-store.js';

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

exit codes: 0 done (even when there was nothing to remove), 1 the store could not be
reached, 2 a usage error (the reason is printed).`;

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
  const opened = await openStoreFor(io, 'forget-user', values, usage);
  if (typeof opened === 'number') return opened;
  try {
    // The receiver's own erasure, over the same store and keys: whatever form records name
    // the user in, this finds them as the receiver does. It polls and delivers nothing.
    const receiver = createReceiver({
      store: opened.store,
      // Erasing an account's user needs its id and the token keys, not the account's secret
      // or key: a resolver that knows no account is enough (and works for an account removed).
      ...(account === undefined
        ? { secret: secrets, client: false as const }
        : { accounts: { resolve: () => undefined } }),
      ...(tokenKeys.length > 0 ? { tokenKeys } : {}),
      logger: false,
    });
    const { removed } = await receiver.forgetUser(
      externalUserId,
      account === undefined ? undefined : { account },
    );
    io.out(
      `Removed ${removed} record${removed === 1 ? '' : 's'} of that user${account === undefined ? '' : ` of account ${account}`} from ${opened.name}.`,
    );
    return EXIT.ok;
  } catch (error) {
    // An id no store holds (a NUL, a lone surrogate, too long): the message never repeats it.
    if (error instanceof TypeError) return usage(error.message);
    io.err(
      `faceverify forget-user: ${opened.name} failed: ${(error as Error).message}. Check that ${opened.name === 'Redis' ? 'REDIS_URL' : 'DATABASE_URL'} points at your receiver's store and that it is reachable.`,
    );
    return EXIT.failed;
  } finally {
    await opened.close();
  }
}
