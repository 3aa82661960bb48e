import { ConfigurationError } from '../errors.js';

/** Edit distance between two option names, case-insensitive (`apikey` is one step from `apiKey`). */
function distance(a: string, b: string): number {
  const left = a.toLowerCase();
  const right = b.toLowerCase();
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let i = 1; i <= left.length; i++) {
    const current = [i];
    for (let j = 1; j <= right.length; j++) {
      const substitution = previous[j - 1]! + (left[i - 1] === right[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
    }
    previous = current;
  }
  return previous[right.length]!;
}

function closest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const candidate of known) {
    const candidateDistance = distance(name, candidate);
    if (candidateDistance < bestDistance) {
      best = candidate;
      bestDistance = candidateDistance;
    }
  }
  return best;
}

/**
 * Refuses option names a function does not know, so that a misspelt or misplaced option
 * fails at startup instead of being silently ignored. `moved` names options that belong
 * elsewhere, with where to put them (a top-level `apiKey` of `createReceiver` belongs in
 * `client`); otherwise the nearest known name is suggested.
 */
export function assertKnownOptions(
  fn: string,
  options: object,
  known: readonly string[],
  moved: Readonly<Record<string, string>> = {},
): void {
  for (const name of Object.keys(options)) {
    if (known.includes(name)) continue;
    const hint = Object.hasOwn(moved, name)
      ? ` Did you mean ${moved[name]}?`
      : closest(name, known) !== undefined
        ? ` Did you mean "${closest(name, known)}"?`
        : '';
    throw new ConfigurationError(
      `${fn} has no option "${name}".${hint} Known options: ${known.join(', ')}.`,
    );
  }
}
