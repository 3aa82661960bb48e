#!/usr/bin/env node
// Packs every public package (built first with `pnpm build`) into one folder and checks
// each tarball (packs/faceverify-core.tgz, ...): LICENSE, README.md and the built entry point
// inside, no `workspace:` range left in its package.json. Prints where each tarball is; how to
// install them (npm, pnpm, Bun, Deno) is docs/getting-started.md, step 1.
//
// usage: node scripts/pack-all.mjs [--out=packs]
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: options } = parseArgs({ options: { out: { type: 'string', default: 'packs' } } });
const OUT = resolve(ROOT, options.out);
const REQUIRED = ['package/LICENSE', 'package/README.md', 'package/package.json'];

function publicPackages() {
  const dir = join(ROOT, 'packages');
  return readdirSync(dir)
    .map((name) => join(dir, name))
    .map((folder) => ({
      folder,
      manifest: JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')),
    }))
    .filter(({ manifest }) => manifest.private !== true)
    .sort((a, b) => a.manifest.name.localeCompare(b.manifest.name));
}

function tarballProblems(tarball, manifest) {
  const entries = new Set(execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n'));
  const problems = REQUIRED.filter((entry) => !entries.has(entry)).map((e) => `no ${e}`);
  const entry = manifest.exports?.['.']?.import?.default?.replace(/^\.\//, 'package/');
  if (entry && !entries.has(entry)) problems.push(`no ${entry} (run pnpm build first)`);
  const packed = JSON.parse(
    execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }),
  );
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [name, range] of Object.entries(packed[field] ?? {})) {
      if (String(range).startsWith('workspace:')) problems.push(`${field}.${name} is ${range}`);
    }
  }
  if (packed.license !== 'MIT') problems.push(`license is ${packed.license}, not MIT`);
  return problems;
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
let failed = false;
const tarballs = [];
for (const { folder, manifest } of publicPackages()) {
  const output = execFileSync('pnpm', ['pack', '--pack-destination', OUT], {
    cwd: folder,
    encoding: 'utf8',
  });
  // Without the version in the name, the install lines in the docs hold for every release.
  const tarball = join(OUT, `${manifest.name.replace(/^@/, '').replace('/', '-')}.tgz`);
  renameSync(output.trim().split('\n').at(-1), tarball);
  const problems = tarballProblems(tarball, manifest);
  for (const problem of problems) console.error(`${manifest.name}: ${problem}`);
  failed ||= problems.length > 0;
  tarballs.push({ name: manifest.name, file: relative(process.cwd(), tarball) });
}

if (failed) {
  console.error('pack-all: some tarballs are incomplete (see above).');
  process.exit(1);
}
console.log(`Packed ${tarballs.length} packages into ${relative(process.cwd(), OUT) || '.'}:`);
for (const { name, file } of tarballs) console.log(`  ${name.padEnd(22)} ${file}`);
console.log('\nInstall them in another project as shown in docs/getting-started.md, step 1.');
