import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

// pnpm prints "WARN There are cyclic workspace dependencies" on every install when two
// workspace packages depend on each other, dev dependencies included (the emulator and the
// Express adapter did, for one browser test): the build order is then a guess.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

function manifests(): Manifest[] {
  return ['packages', 'examples'].flatMap((parent) =>
    readdirSync(join(ROOT, parent))
      .map((folder) => join(ROOT, parent, folder, 'package.json'))
      .filter((file) => existsSync(file))
      .map((file) => JSON.parse(readFileSync(file, 'utf8')) as Manifest),
  );
}

it('has no cycle among the workspace packages, dev dependencies included', () => {
  const all = manifests();
  const names = new Set(all.map(({ name }) => name));
  const edges = new Map(
    all.map((manifest) => [
      manifest.name,
      Object.keys({
        ...manifest.dependencies,
        ...manifest.devDependencies,
        ...manifest.peerDependencies,
        ...manifest.optionalDependencies,
      }).filter((name) => names.has(name)),
    ]),
  );
  const cycles: string[] = [];
  const done = new Set<string>();
  const visit = (name: string, path: string[]) => {
    if (path.includes(name)) {
      cycles.push([...path.slice(path.indexOf(name)), name].join(' → '));
      return;
    }
    if (done.has(name)) return;
    for (const next of edges.get(name) ?? []) visit(next, [...path, name]);
    done.add(name);
  };
  for (const name of names) visit(name, []);
  expect(cycles).toEqual([]);
});
