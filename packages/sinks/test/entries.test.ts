import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const DIST = new URL('../dist/', import.meta.url);

/** The packages a built file loads, its own chunks followed, in both module formats. */
function packagesLoadedBy(file: string, seen = new Set<string>()): Set<string> {
  const loaded = new Set<string>();
  if (seen.has(file)) return loaded;
  seen.add(file);
  const code = readFileSync(new URL(file, DIST), 'utf8');
  // Statements only: the JSDoc examples kept in the bundles show imports too.
  const statements = /^import\b[^"']*["']([^"']+)["']|\brequire\(["']([^"']+)["']\)/gm;
  for (const [, imported, required] of code.matchAll(statements)) {
    const specifier = imported ?? required;
    if (specifier?.startsWith('./')) {
      for (const name of packagesLoadedBy(specifier.slice(2), seen)) loaded.add(name);
    } else if (specifier) loaded.add(specifier);
  }
  return loaded;
}

it('each sink loads only its own client: a sink never pulls a client its users do not need', () => {
  for (const extension of ['js', 'cjs']) {
    const of = (entry: string) => [...packagesLoadedBy(`${entry}.${extension}`)].sort();
    expect(of('index')).toEqual([]);
    expect(of('redis')).toEqual(['@faceverify/core']);
    expect(of('nats')).toEqual(['@faceverify/core']);
    expect(of('postgres')).toEqual(['@faceverify/core']);
    expect(of('http')).toEqual(['@faceverify/core']);
    expect(of('rabbitmq')).toEqual(['@faceverify/core', 'amqplib']);
  }
});
