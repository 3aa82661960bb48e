/** Where the command line reads its environment and writes its output; a test passes its own. */
export interface CliIO {
  out(line: string): void;
  err(line: string): void;
  env: Readonly<Record<string, string | undefined>>;
  readFile(path: string): Promise<Uint8Array>;
}

/** Exit codes a script can rely on. */
export const EXIT = {
  /**
   * Everything checked passed; the receiver answered 2xx.
   */
  ok: 0,
  /**
   * A check failed, or the receiver answered otherwise, or could not be reached.
   */
  failed: 1,
  /**
   * The command line itself was wrong: an unknown command or option, a missing value.
   */
  usage: 2,
} as const;

/** An environment variable, trimmed; undefined when unset or blank. */
export function envValue(io: CliIO, name: string): string | undefined {
  const value = io.env[name]?.trim();
  return value ? value : undefined;
}

/** A comma-separated list of `name`, in its order, each trimmed; `[]` when unset. */
function envList(io: CliIO, name: string): string[] {
  return (envValue(io, name) ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** The signing secrets of `FACEVERIFY_WEBHOOK_SECRET`: comma-separated, in their order. */
export function envSecrets(io: CliIO): string[] {
  return envList(io, 'FACEVERIFY_WEBHOOK_SECRET');
}

/** The receiver's token keys, `FACEVERIFY_TOKEN_KEYS`: comma-separated, the first keying new sessions. */
export function envTokenKeys(io: CliIO): string[] {
  return envList(io, 'FACEVERIFY_TOKEN_KEYS');
}

/**
 * Says what is wrong with the command line, and where its usage is, in two lines: the usage
 * itself, tens of lines, would push the one line that matters off the screen. Returns
 * `EXIT.usage`.
 */
export function usageError(io: CliIO, command: string | undefined, message: string): number {
  const name = command === undefined ? 'faceverify' : `faceverify ${command}`;
  io.err(`${name}: ${message}`);
  io.err(`Run \`${name} --help\` for the usage.`);
  return EXIT.usage;
}
