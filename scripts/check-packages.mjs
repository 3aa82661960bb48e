#!/usr/bin/env node
// `pnpm check:packages`: packs every public package once (scripts/pack-all.mjs checks each
// tarball's contents), then lints those same tarballs with publint --strict, two at a time,
// and checks their types as attw does (@arethetypeswrong/core, in this process: TypeScript
// loads once for all of them, not once per tarball). Packing once instead of once per tool
// keeps CI short; the tarballs checked are the ones `pnpm pack` would publish.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkPackage, createPackageFromTarballData } from '@arethetypeswrong/core';
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

// The resolutions each attw profile leaves out, as `attw --profile` does.
const IGNORED_RESOLUTIONS = { node16: ['node10'], 'esm-only': ['node10', 'node16-cjs'] };

/**
 * attw's profile for a tarball: `esm-only` for a package that offers no `require` entry (the
 * command line), `node16` for the dual packages.
 * @param {string} tarball `faceverify-<folder>.tgz`
 * @returns {keyof typeof IGNORED_RESOLUTIONS}
 */
function attwProfile(tarball) {
  const folder = tarball.replace(/^faceverify-/, '').replace(/\.tgz$/, '');
  const { exports } = JSON.parse(
    readFileSync(join(ROOT, 'packages', folder, 'package.json'), 'utf8'),
  );
  const entries = Object.values(exports ?? {}).filter((entry) => typeof entry === 'object');
  return entries.some((entry) => 'require' in entry) ? 'node16' : 'esm-only';
}

/**
 * attw's check of one tarball; prints its problems when it has any.
 * @param {string} tarball
 */
async function typesResolve(tarball) {
  const data = new Uint8Array(readFileSync(join(PACKS, tarball)));
  const analysis = await checkPackage(createPackageFromTarballData(data));
  if (!analysis.types) return true;
  const profile = attwProfile(tarball);
  const ignored = IGNORED_RESOLUTIONS[profile];
  const problems = analysis.problems.filter(
    (problem) => !('resolutionKind' in problem) || !ignored.includes(problem.resolutionKind),
  );
  if (problems.length === 0) return true;
  console.error(
    `attw ${tarball} failed (\`attw --profile ${profile} packs/${tarball}\` shows the table):\n` +
      problems.map((problem) => `  ${problem.kind} ${JSON.stringify(problem, null, 0)}`).join('\n'),
  );
  return false;
}

const linted = await runAll(
  tarballs.map((tarball) => () => run('publint', ['--strict'], tarball)),
  PARALLEL,
);
let typed = true;
for (const tarball of tarballs) typed = (await typesResolve(tarball)) && typed;
const passed = linted && typed;
console.log(
  `${tarballs.length} packages packed once; publint --strict and attw ${passed ? 'passed' : 'FAILED'}`,
);
process.exitCode = passed ? 0 : 1;
