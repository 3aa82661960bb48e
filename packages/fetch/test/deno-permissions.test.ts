import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

// Issue 19, item 5: the documented Deno command must grant every variable the Receiver reads,
// or the app stops at start with NotCapable.
it('the README’s Deno command grants every environment variable the Receiver reads', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const command = /`(deno run [^`]*)`/.exec(readme)?.[1];
  expect(command).toBeDefined();
  const granted = /--allow-env=(\S+)/.exec(command!)?.[1]?.split(',') ?? [];
  // The variables core reads, from the one file that names them.
  const env = readFileSync(new URL('../../core/src/config/env.ts', import.meta.url), 'utf8');
  const read = [...new Set(env.match(/FACEVERIFY_[A-Z_]+/g))];
  expect(read.length).toBeGreaterThanOrEqual(3);
  expect(granted.sort()).toEqual(read.sort());
});
