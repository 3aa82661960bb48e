import { CliUsageError } from './cli-usage-error.js';
import { FLAGS, type FlagSpec } from './flags.js';

/** Values given per flag name; a flag without a value holds `["true"]`. */
export type FlagValues = ReadonlyMap<string, readonly string[]>;

const TRUE_WORDS = ['1', 'true', 'yes'];
const FALSE_WORDS = ['0', 'false', 'no'];

function specOf(name: string): FlagSpec {
  const spec = FLAGS.find((flag) => flag.name === name);
  if (!spec) throw new CliUsageError(`Unknown flag --${name}.`);
  return spec;
}

function fromEnvironment(spec: FlagSpec, raw: string): string[] {
  if (spec.value === null) {
    const word = raw.toLowerCase();
    if (TRUE_WORDS.includes(word)) return ['true'];
    if (FALSE_WORDS.includes(word)) return [];
    throw new CliUsageError(
      `${spec.env} must be one of ${[...TRUE_WORDS, ...FALSE_WORDS].join(', ')}.`,
    );
  }
  return spec.repeatable ? raw.split(',').map((part) => part.trim()) : [raw];
}

/**
 * Reads flags (`--name value`, `--name=value`, or `--name` alone for flags that allow it) and,
 * for each flag not given, its environment variable. Flags win over the environment.
 *
 * @throws CliUsageError for an unknown, repeated or incomplete flag, or a stray argument.
 */
export function parseArgs(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): FlagValues {
  const values = new Map<string, string[]>();
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] ?? '';
    if (!argument.startsWith('--')) {
      throw new CliUsageError(`Unexpected argument "${argument}": every option is a --flag.`);
    }
    const equals = argument.indexOf('=');
    const name = argument.slice(2, equals === -1 ? undefined : equals);
    const inline = equals === -1 ? undefined : argument.slice(equals + 1);
    const spec = specOf(name);
    const following = argv[index + 1];
    const followingIsValue = following !== undefined && !following.startsWith('--');
    let value: string;
    if (spec.value === null) {
      if (inline !== undefined) throw new CliUsageError(`--${name} takes no value.`);
      value = 'true';
    } else if (inline !== undefined) {
      value = inline;
    } else if (followingIsValue) {
      value = following;
      index += 1;
    } else if (spec.optionalValue) {
      value = 'always';
    } else {
      throw new CliUsageError(`--${name} needs a value: --${name} ${spec.value}.`);
    }
    const earlier = values.get(name);
    if (earlier && !spec.repeatable) throw new CliUsageError(`--${name} is given twice.`);
    values.set(name, [...(earlier ?? []), value]);
  }
  for (const spec of FLAGS) {
    const raw = spec.env === null ? undefined : env[spec.env]?.trim();
    if (values.has(spec.name) || raw === undefined || raw === '') continue;
    const fromEnv = fromEnvironment(spec, raw);
    if (fromEnv.length > 0) values.set(spec.name, fromEnv);
  }
  return values;
}
