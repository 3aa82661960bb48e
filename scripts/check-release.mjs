#!/usr/bin/env node
// `pnpm check:release`: what a release needs, one line each when it passes and the whole
// output of a check when it fails (npm's dry run lists every file of every tarball).
//   1. every public package packed once, complete, linted and its types checked
//      (scripts/check-packages.mjs);
//   2. the changesets are consistent (`changeset status`);
//   3. `pnpm publish -r --dry-run` would publish each public package (packs each one again and
//      asks the registry: left to the release itself with `--without-dry-run`, as CI does).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHECKS = [
  ['packages', [process.execPath, 'scripts/check-packages.mjs']],
  ['changesets', ['pnpm', 'exec', 'changeset', 'status']],
  ...(process.argv.includes('--without-dry-run')
    ? []
    : [['publish dry run', ['pnpm', 'publish', '-r', '--dry-run', '--no-git-checks']]]),
];

let failed = false;
for (const [name, [command, ...args]] of CHECKS) {
  const run = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', env: process.env });
  const output = `${run.stdout ?? ''}${run.stderr ?? ''}`;
  if (run.status !== 0) {
    failed = true;
    process.stderr.write(output);
    console.error(`check:release: ${name} failed (${[command, ...args].join(' ')})`);
    continue;
  }
  if (name === 'publish dry run') {
    // npm names each package it would publish on a line of its own: "📦  @scope/name@1.2.3".
    const published = output.match(/📦\s+\S+/g) ?? [];
    console.log(
      `publish dry run: ${published.map((line) => line.replace(/📦\s+/, '')).join(', ')}`,
    );
  } else {
    const last = output.trim().split('\n').at(-1) ?? '';
    console.log(`${name}: ${name === 'changesets' ? 'consistent' : last}`);
  }
}
process.exit(failed ? 1 : 0);
