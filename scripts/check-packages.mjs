#!/usr/bin/env node
// `pnpm check:packages`: packs every public package once (scripts/pack-all.mjs checks each
// tarball's contents), then lints those same tarballs with publint --strict and checks their
// types with attw (node16 profile), two at a time. Packing once instead of once per tool
// keeps CI short; the tarballs checked are the ones `pnpm pack` would publish.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAll, runCapturing } from './lib/jobs.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PACKS = join(ROOT, 'packs');
const BIN = join(ROOT, 'node_modules', '.bin');
const PARALLEL = 2;

execFileSync(process.execPath, [join(ROOT, 'scripts', 'pack-all.mjs')], {
  cwd: ROOT,
  stdio: ['ignore', 'ignore', 'inherit'],
});
const tarballs = readdirSync(PACKS).filter((name) => name.endsWith('.tgz'));

/**
 * Runs one tool on one tarball; prints its output only when it fails.
 * @param {string} tool
 * @param {string[]} args
 * @param {string} tarball
 */
async function run(tool, args, tarball) {
  const { passed, output } = await runCapturing(
    join(BIN, tool),
    [...args, join(PACKS, tarball)],
    ROOT,
  );
  if (!passed) console.error(`${tool} ${tarball} failed:\n${output.trimEnd()}`);
  return passed;
}

/**
 * attw's profile for a tarball: `esm-only` for a package that offers no `require` entry
 * (the command line), `node16` for the dual packages.
 * @param {string} tarball `faceverify-<folder>.tgz`
 */
function attwProfile(tarball) {
  const folder = tarball.replace(/^faceverify-/, '').replace(/\.tgz$/, '');
  const { exports } = JSON.parse(
    readFileSync(join(ROOT, 'packages', folder, 'package.json'), 'utf8'),
  );
  const entries = Object.values(exports ?? {}).filter((entry) => typeof entry === 'object');
  return entries.some((entry) => 'require' in entry) ? 'node16' : 'esm-only';
}

const passed = await runAll(
  tarballs.flatMap((tarball) => [
    () => run('publint', ['--strict'], tarball),
    () => run('attw', ['--profile', attwProfile(tarball)], tarball),
  ]),
  PARALLEL,
);
console.log(
  `${tarballs.length} packages packed once; publint --strict and attw ${passed ? 'passed' : 'FAILED'}`,
);
process.exitCode = passed ? 0 : 1;
