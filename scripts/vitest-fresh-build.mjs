// Vitest global setup: tests start child processes (receivers, the emulator's CLI, the demo,
// examples) from the packages' dist/, which must be what the sources say now, not an older
// build. `pnpm test` builds first, so this finds nothing to do there; a direct `vitest run`
// or `pnpm test:watch` after an edit gets the edited packages rebuilt before any test runs.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PACKAGES = join(ROOT, 'packages');

/** Newest (or, with `oldest`, oldest) modification time of the files under `dir`. */
function mtimeOf(dir, oldest = false) {
  let found = oldest ? Number.POSITIVE_INFINITY : 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const time = statSync(join(entry.parentPath, entry.name)).mtimeMs;
    found = oldest ? Math.min(found, time) : Math.max(found, time);
  }
  return found;
}

/** Packages with a build whose dist/ is missing or older than a source file. */
export function stalePackages() {
  return readdirSync(PACKAGES).filter((name) => {
    const dir = join(PACKAGES, name);
    if (!existsSync(join(dir, 'src'))) return false;
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    if (!manifest.scripts?.build) return false;
    const dist = join(dir, 'dist');
    if (!existsSync(dist)) return true;
    return mtimeOf(join(dir, 'src')) > mtimeOf(dist, true);
  });
}

export default function setup() {
  const stale = stalePackages();
  if (stale.length === 0) return;
  // Only the stale ones: packages import each other's dist/ at run time, never a bundled copy.
  const filters = stale.map((name) => `./packages/${name}`);
  const build = spawnSync(
    process.execPath,
    [join(ROOT, 'scripts', 'quiet-build.mjs'), ...filters],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
  if (build.status !== 0) throw new Error('the build before the tests failed (output above)');
}
