#!/usr/bin/env node
// `pnpm check:packages`: packs every public package once (scripts/pack-all.mjs checks each
// tarball's contents), then lints those same tarballs with publint --strict and checks their
// types with attw (node16 profile), two at a time. Packing once instead of once per tool
// keeps CI short; the tarballs checked are the ones `pnpm pack` would publish.
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PACKS = join(ROOT, 'packs');
const BIN = join(ROOT, 'node_modules', '.bin');
const PARALLEL = 2;

execFileSync(process.execPath, [join(ROOT, 'scripts', 'pack-all.mjs')], {
  cwd: ROOT,
  stdio: ['ignore', 'ignore', 'inherit'],
});
const tarballs = readdirSync(PACKS).filter((name) => name.endsWith('.tgz'));

/** Runs one tool on one tarball; prints its output only when it fails. */
function run(tool, args, tarball) {
  return new Promise((resolve) => {
    const child = spawn(join(BIN, tool), [...args, join(PACKS, tarball)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('close', (code) => {
      if (code !== 0) console.error(`${tool} ${tarball} failed:\n${output.trimEnd()}`);
      resolve(code === 0);
    });
  });
}

const jobs = tarballs.flatMap((tarball) => [
  () => run('publint', ['--strict'], tarball),
  () => run('attw', ['--profile', 'node16'], tarball),
]);
const passed = (
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      let ok = true;
      for (let job = jobs.shift(); job; job = jobs.shift()) ok = (await job()) && ok;
      return ok;
    }),
  )
).every(Boolean);
console.log(
  `${tarballs.length} packages packed once; publint --strict and attw ${passed ? 'passed' : 'FAILED'}`,
);
process.exitCode = passed ? 0 : 1;
