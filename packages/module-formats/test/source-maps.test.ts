import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// A source map in a tarball must point at sources in that tarball: a debugger, Vite or
// source-map-loader warns for each path that leaves it (`../../shared-sql/src/*.ts` did).
const PACKAGES = fileURLToPath(new URL('../../', import.meta.url));

const published = readdirSync(PACKAGES)
  .map((folder) => join(PACKAGES, folder))
  .filter((folder) => existsSync(join(folder, 'package.json')))
  .map((folder) => ({
    folder,
    manifest: JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as {
      name: string;
      private?: boolean;
      files?: string[];
    },
  }))
  .filter(({ manifest }) => manifest.private !== true);

describe('the source maps of every published package', () => {
  it.each(published.map(({ folder, manifest }) => [manifest.name, folder, manifest.files ?? []]))(
    '%s: point only at files its tarball holds',
    (_name, folder, files) => {
      const dist = join(folder as string, 'dist');
      const maps = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((file) =>
        file.endsWith('.map'),
      );
      expect(maps.length, 'run pnpm build first').toBeGreaterThan(0);
      const outside: string[] = [];
      for (const map of maps) {
        const { sources } = JSON.parse(readFileSync(join(dist, map), 'utf8')) as {
          sources: string[];
        };
        for (const source of sources) {
          const file = relative(folder as string, resolve(dirname(join(dist, map)), source));
          // npm always packs package.json, whatever `files` says.
          const shipped =
            file === 'package.json' ||
            (files as string[]).some((entry) => file === entry || file.startsWith(`${entry}/`));
          if (!shipped || !existsSync(join(folder as string, file)))
            outside.push(`${map}: ${source}`);
        }
      }
      expect(outside).toEqual([]);
    },
  );
});
