import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';

/** The installed PGlite's version: its package.json is not among its exports. */
function pgliteVersion(): string {
  let dir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name, version } = JSON.parse(readFileSync(manifest, 'utf8'));
      if (name === '@electric-sql/pglite') return version;
    }
    if (dirname(dir) === dir) throw new Error('@electric-sql/pglite: no package.json found');
    dir = dirname(dir);
  }
}

/**
 * A new, empty PGlite database, started from a data folder made once per machine, PGlite
 * release and user: PGlite's own first start runs initdb in WebAssembly, 2 to 5 s of CPU, and
 * the suite starts about ten of them; started from the saved folder, one takes about 0.5 s.
 * Processes that make the folder at once each write their own and rename it into place; one
 * rename wins whole.
 */
export async function startPGlite(): Promise<PGlite> {
  const owner = process.getuid?.() ?? 'user';
  const saved = join(tmpdir(), `faceverify-pglite-${pgliteVersion()}-${owner}.tar`);
  if (existsSync(saved)) {
    return PGlite.create({ loadDataDir: new Blob([readFileSync(saved)]) });
  }
  const db = await PGlite.create();
  const folder = await db.dumpDataDir('none');
  const writing = `${saved}.${process.pid}.${Date.now()}`;
  writeFileSync(writing, new Uint8Array(await folder.arrayBuffer()));
  renameSync(writing, saved);
  return db;
}
