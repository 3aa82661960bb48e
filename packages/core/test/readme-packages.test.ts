import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

// The core README is where a reader learns which adapters and stores exist: one it leaves out
// is one they never find (Fastify, PostgreSQL and D1 once were).
const packagesFolder = new URL('../../', import.meta.url);
const readme = readFileSync(new URL('core/README.md', packagesFolder), 'utf8');

// Published packages built on core that are tools, not an adapter or a store.
const TOOLS = new Set(['@faceverify/cli', '@faceverify/emulator', '@faceverify/relay']);

interface Manifest {
  name: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** The published adapters and stores: every public package built on core but the tools. */
function adaptersAndStores(): string[] {
  return readdirSync(packagesFolder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== 'core')
    .map(
      (entry) =>
        JSON.parse(
          readFileSync(new URL(`${entry.name}/package.json`, packagesFolder), 'utf8'),
        ) as Manifest,
    )
    .filter(
      (manifest) =>
        !manifest.private &&
        !TOOLS.has(manifest.name) &&
        '@faceverify/core' in { ...manifest.dependencies, ...manifest.peerDependencies },
    )
    .map((manifest) => manifest.name)
    .sort();
}

it('packages/core/README.md names every adapter and store where it introduces them', () => {
  const start = readme.indexOf('The framework adapters (');
  const paragraph = readme.slice(start, readme.indexOf('\n\n', start));
  const named = [...paragraph.matchAll(/`(@faceverify\/[\w-]+)`/g)].map((match) => match[1]);
  const expected = adaptersAndStores();
  expect(expected).toContain('@faceverify/fastify');
  expect([...new Set(named)].sort()).toEqual(expected);
});
