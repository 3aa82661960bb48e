import { parseArgs } from 'node:util';
import { createDeadLetters, type DeadLetter } from '@faceverify/core';
import { type CliIO, EXIT, envSecrets, envTokenKeys, usageError } from '../cli-io.js';
import { noStoreData, openStoreFor, STORE_FLAGS } from '../open-store.js';
import { printable, printableJson } from '../printable.js';

export const DEAD_LETTERS_HELP = `usage: faceverify dead-letters <list|redeliver KEY|discard KEY> [options]

Works on the results your receiver gave up after maxDeliveryAttempts failed handler runs
(each one was passed to your verification.undeliverable handlers), in your receiver's store:
  list            print them, the longest given up first, one per line:
                  KEY  USER  STATUS  ATTEMPTS  RECEIVED-AT
                  and ACCOUNT last when they carry one (a receiver of several accounts)
  redeliver KEY   hand one back for delivery: your receiver's next sweep runs the
                  verification.completed handlers with it, once, whichever instance sweeps
  discard KEY     remove one for good: it is neither listed nor delivered again

The store is REDIS_URL (RedisStore) or DATABASE_URL (PostgresStore), from the environment.
Results are sealed in the store: they are opened with the keys your receiver seals them with,
FACEVERIFY_WEBHOOK_SECRET and FACEVERIFY_TOKEN_KEYS (when it sets them), from the environment.
A dead letter no key opens is listed on stderr by its key alone, with the key ids it needs.
A receiver of several accounts seals with FACEVERIFY_TOKEN_KEYS alone.

options:
  --store redis|postgres   which one, when both variables are set
  --prefix PREFIX          the store's prefix, when your receiver sets one
                           (RedisStore default faceverify:, PostgresStore default faceverify_)
  --schema SCHEMA          PostgresStore's schema (default public)
  --account ID             list: only this account's (a receiver of several accounts); a
                           page may then print fewer than N: follow the cursor to the end
  --limit N                list: at most N per page (default 50, at most 1000)
  --cursor CURSOR          list: the page after the one that printed this cursor
  --json                   list: one JSON object per line, with the whole result
  -h, --help               this text

exit codes: 0 done (list: printed, even none), 1 KEY is no dead letter (any more), no
faceverify data where the store was looked for (check --prefix, --schema), or the store could
not be reached, 2 a usage error (the reason is printed).`;

const ACTIONS = ['list', 'redeliver', 'discard'] as const;
type Action = (typeof ACTIONS)[number];

function isAction(value: string | undefined): value is Action {
  return ACTIONS.some((action) => action === value);
}

export async function deadLetters(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...STORE_FLAGS,
      limit: { type: 'string', default: '50' },
      cursor: { type: 'string' },
      account: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    io.out(DEAD_LETTERS_HELP);
    return EXIT.ok;
  }
  const [action, key, ...extra] = positionals;
  const usage = (message: string) => usageError(io, 'dead-letters', message);
  if (!isAction(action)) {
    return usage(
      action === undefined
        ? 'say what to do: list, redeliver KEY or discard KEY'
        : `unknown action "${printable(action)}"`,
    );
  }
  if (action === 'list' ? key !== undefined : key === undefined || extra.length > 0) {
    return usage(
      action === 'list'
        ? 'list takes no KEY'
        : `${action} takes one KEY, as \`faceverify dead-letters list\` prints it`,
    );
  }
  if (action !== 'list' && values.account !== undefined) {
    return usage(`--account filters list only: ${action} KEY names one dead letter already`);
  }
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    return usage(`--limit must be a whole number from 1 to 1000, not "${printable(values.limit)}"`);
  }
  const opened = await openStoreFor(io, 'dead-letters', values, usage);
  if (typeof opened === 'number') return opened;
  const letters = createDeadLetters(opened.store, undefined, {
    secrets: envSecrets(io),
    tokenKeys: envTokenKeys(io),
  });
  try {
    // Looked for first, reading only: the store's own calls write its bookkeeping wherever
    // they are pointed, and a wrong prefix would read as a store without dead letters.
    if (!(await opened.hasData())) {
      io.err(`faceverify dead-letters: ${noStoreData(opened)}`);
      return EXIT.failed;
    }
    if (action === 'list') {
      const page = await letters.list({
        limit,
        ...(values.cursor === undefined ? {} : { cursor: values.cursor }),
        ...(values.account === undefined ? {} : { account: values.account }),
      });
      // The account column, last, when the page holds a dead letter of an account.
      const withAccount = page.deadLetters.some((letter) => letter.account !== undefined);
      for (const letter of page.deadLetters) {
        io.out(values.json ? asJson(letter) : asLine(letter, withAccount));
      }
      for (const { key, keyIds } of page.sealed ?? []) {
        io.err(
          `sealed: ${printable(key)} opens with none of the keys given (it needs token key ${keyIds.join(' or ')}): set FACEVERIFY_WEBHOOK_SECRET and FACEVERIFY_TOKEN_KEYS as your receiver has them.`,
        );
      }
      const accountFlag = values.account === undefined ? '' : ` --account ${values.account}`;
      if (page.cursor !== undefined) {
        io.err(
          `more: faceverify dead-letters list${accountFlag} --cursor '${printable(page.cursor)}'`,
        );
      } else if (page.deadLetters.length === 0 && !page.sealed && values.cursor === undefined) {
        io.err(
          `No dead letters${values.account === undefined ? '' : ` of account ${values.account}`} in ${opened.name}.`,
        );
      }
      return EXIT.ok;
    }
    const applied =
      action === 'redeliver' ? await letters.redeliver(key!) : await letters.discard(key!);
    if (!applied) {
      io.err(
        `faceverify dead-letters: ${printable(key!)} is no dead letter in ${opened.name} (any more): it was redelivered or discarded already, its retention ended, or the key is not one \`faceverify dead-letters list\` printed (check --prefix).`,
      );
      return EXIT.failed;
    }
    io.out(
      action === 'redeliver'
        ? `${printable(key!)}: handed back for delivery; your receiver's next sweep delivers it.`
        : `${printable(key!)}: discarded.`,
    );
    return EXIT.ok;
  } catch (error) {
    if (error instanceof RangeError) return usage(error.message);
    io.err(
      `faceverify dead-letters: ${opened.name} failed: ${printable((error as Error).message)}. Check that ${opened.variable} points at your receiver's store and that it is reachable.`,
    );
    return EXIT.failed;
  } finally {
    await opened.close();
  }
}

/** One line per dead letter, each field escaped: the user id is whatever the sender wrote. */
function asLine(letter: DeadLetter, withAccount: boolean): string {
  const fields = [
    letter.key,
    letter.externalUserId,
    letter.data.status,
    letter.attempts,
    letter.receivedAt.toISOString(),
    // A dead letter of no account beside those of accounts (one left from before accounts).
    ...(withAccount ? [letter.account ?? '-'] : []),
  ];
  return fields.map((field) => printable(String(field))).join('\t');
}

function asJson(letter: DeadLetter): string {
  return printableJson({ ...letter, receivedAt: letter.receivedAt.toISOString() });
}
