#!/usr/bin/env node
// The Workers tests (packages/cloudflare, examples/hono-cloudflare) run workerd through
// Miniflare 4, which needs Node 22 or later. This installs Node 22 and Miniflare 4 from the npm
// registry into node_modules/.cache/faceverify-runtimes (about 360 MB on disk, once; later
// runs need no network) and prints what it found. `pnpm test` runs it before Vitest, so test
// projects running side by side never install at the same time. `--refresh` installs the
// latest again.
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { binCandidates, ensureInstalled } from './runtimes/provision.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const RUNTIMES_CACHE = join(ROOT, 'node_modules', '.cache', 'faceverify-runtimes');

const LOCK = join(RUNTIMES_CACHE, 'miniflare.lock');
// Longer than two installs may take; a lock older than this was left by a killed process.
const STALE_LOCK_MS = 11 * 60_000;

/**
 * Runs `body` while holding a lock folder, so that test projects started side by side (each
 * calling this) install one at a time; the second then finds the first one's install.
 */
async function withInstallLock(body) {
  mkdirSync(RUNTIMES_CACHE, { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'EEXIST') throw error;
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > STALE_LOCK_MS)
          rmSync(LOCK, { force: true, recursive: true });
      } catch {
        // Released meanwhile: try again.
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    return await body();
  } finally {
    rmSync(LOCK, { force: true, recursive: true });
  }
}

/**
 * Node 22 and Miniflare 4, installed once into the runtimes cache (shared with
 * `pnpm test:runtimes`).
 * @returns {Promise<{ node: string, miniflareDir: string, installed: boolean, versions: string }>}
 */
export function ensureMiniflare({ refresh = false } = {}) {
  return withInstallLock(() => install(refresh));
}

async function install(refresh) {
  const node = await ensureInstalled({
    dir: join(RUNTIMES_CACHE, 'node22'),
    spec: 'node@22',
    candidates: (dir) => binCandidates(dir, 'node'),
    refresh,
  });
  // npm must run on Node 22 too: it picks the release whose `engines` match the Node it runs on.
  const miniflare = await ensureInstalled({
    dir: join(RUNTIMES_CACHE, 'miniflare'),
    spec: 'miniflare@4',
    candidates: (dir) => binCandidates(dir, 'workerd'),
    nodeBinDir: dirname(node.bin),
    refresh,
  });
  return {
    node: node.bin,
    miniflareDir: miniflare.dir,
    installed: node.installed || miniflare.installed,
    versions: `${node.versionOutput}, ${miniflare.versionOutput.split('\n')[0]}`,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  try {
    const result = await ensureMiniflare({ refresh: process.argv.includes('--refresh') });
    const how = result.installed
      ? `installed from the npm registry in ${((Date.now() - started) / 1000).toFixed(1)} s`
      : 'cached';
    console.log(`Node 22 and Miniflare for the Workers tests: ${result.versions} (${how})`);
  } catch (error) {
    console.error(
      `Could not install Node 22 and Miniflare 4 from the npm registry, which the Workers tests need:\n${error instanceof Error ? error.message : error}\n` +
        'Check the network and the npm registry settings (npm config get registry), then run `node scripts/ensure-miniflare.mjs` again.',
    );
    process.exit(1);
  }
}
