import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

// Core's folders are layers: a folder imports only from folders below it, so each layer can be
// read, tested and changed without the ones above. `node scripts/core-shape.mjs` prints the
// whole graph; this test keeps its direction.
const LAYERS: readonly (readonly string[])[] = [
  ['(root)'], // index.ts only: the package's main entry
  ['base'], // errors, clock, logging, abort signals, configuration from the environment
  ['wire'], // what the service sends and how it is proved: payload, signature, bounded reads
  ['client'], // the service's API
  ['store', 'accounts'], // what a record is, sealed at rest; the accounts of a Receiver of several
  ['operations'], // health, alarms, telemetry: what the Receiver saw and tells
  ['delivery'], // leases, handlers, poll, sweep, dead letters
  ['receiver'], // the webhook's decision, results (confirm, waitForResult), the facade
  ['adapter'], // what every framework adapter shares
  ['image', 'testing', 'opentelemetry'], // extras, each behind an entry point of its own
];
// The package's entry points gather names from every layer; they are its surface, not a layer.
const ENTRIES = new Set([
  'index.ts',
  'adapter/index.ts',
  'store/index.ts',
  'testing/index.ts',
  'opentelemetry/index.ts',
]);

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const rank = new Map(LAYERS.flatMap((folders, level) => folders.map((f) => [f, level] as const)));

function folderOf(file: string): string {
  const parts = file.split('/');
  return parts.length > 1 ? parts[0]! : '(root)';
}

function sources(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [relative(SRC, path)] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8');
  const found = [...text.matchAll(/\bfrom\s+'(\.{1,2}\/[^']+)'/g)].map((match) => match[1]!);
  return found.map((spec) =>
    relative(SRC, resolve(dirname(join(SRC, file)), spec)).replace(/\.js$/, '.ts'),
  );
}

it('every folder of core is a layer of the list, and imports only from layers below it', () => {
  const files = sources();
  expect(files.length).toBeGreaterThan(50);
  const unlisted = [...new Set(files.map(folderOf))].filter((folder) => !rank.has(folder));
  expect(unlisted, 'add each new folder to LAYERS').toEqual([]);
  const upward: string[] = [];
  for (const file of files) {
    if (ENTRIES.has(file)) continue;
    const from = folderOf(file);
    for (const target of importsOf(file)) {
      const to = folderOf(target);
      if (to !== from && rank.get(to)! >= rank.get(from)!) upward.push(`${file} -> ${target}`);
    }
  }
  expect(upward).toEqual([]);
});
