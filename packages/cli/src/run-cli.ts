import { readFile } from 'node:fs/promises';
import { type CliIO, EXIT, usageError } from './cli-io.js';
import { deadLetters } from './commands/dead-letters.js';
import { doctor } from './commands/doctor.js';
import { forgetUser } from './commands/forget-user.js';
import { trigger } from './commands/trigger.js';
import { printable } from './printable.js';

export const HELP = `usage: faceverify <command> [options]

commands:
  trigger   send a signed verification.completed to your receiver and explain its answer
  doctor    check the secret, the API key and the callback URL; or say why a captured
            signature does not match its body
  dead-letters
            list, redeliver or discard the results your receiver gave up (REDIS_URL or
            DATABASE_URL)
  forget-user
            erasure: remove every record your receiver's store holds of one user
  help      this text; \`faceverify <command> --help\` for a command's own

The secret and the API key come from the environment (FACEVERIFY_WEBHOOK_SECRET,
FACEVERIFY_API_KEY, FACEVERIFY_BASE_URL), never from the command line, and are never printed.

exit codes: 0 success, 1 a check or the receiver failed, 2 a usage error.`;

const COMMANDS: Record<string, (args: string[], io: CliIO) => Promise<number>> = {
  trigger,
  doctor,
  'dead-letters': deadLetters,
  'forget-user': forgetUser,
};
/** The process's own environment and console. */
export const processIO: CliIO = {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  env: process.env,
  readFile: async (path) => new Uint8Array(await readFile(path)),
};

/**
 * Runs `faceverify` with `args` (without the node and script paths) and resolves to its exit
 * code: 0 success, 1 a failed check or receiver answer, 2 a usage error.
 *
 * @example
 * process.exitCode = await runCli(['trigger', '--url', 'http://localhost:3000/webhooks/verification']);
 */
export async function runCli(args: readonly string[], io: CliIO = processIO): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    (name === undefined ? io.err : io.out)(HELP);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = COMMANDS[name];
  if (!command) {
    return usageError(
      io,
      undefined,
      `unknown command "${printable(name)}": the commands are ${Object.keys(COMMANDS).join(', ')}`,
    );
  }
  try {
    return await command(rest, io);
  } catch (error) {
    // parseArgs refuses unknown options and missing values with a TypeError of its own.
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      return usageError(io, name, printable((error as Error).message));
    }
    throw error;
  }
}
