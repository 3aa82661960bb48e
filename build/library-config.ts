import { cp } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { UserConfig } from 'tsdown';
import { failOnMisplacedJsdoc } from './misplaced-jsdoc.ts';

/**
 * The build every public package shares: ESM and CommonJS side by side, each with its own
 * declarations (`.d.ts` for `import`, `.d.cts` for `require`), both keeping the file names the
 * `exports` maps name (`index.js`, `index.cjs`).
 *
 * What is shared between entry points goes into shared chunks in BOTH formats, so
 * `@faceverify/core` and `@faceverify/core/adapter` load one copy of each class and registry
 * under `require()` as under `import`. Dependencies (`@faceverify/core` in every adapter and
 * store) are never bundled: an app has one core, whichever module system loads it.
 *
 * Not ESM only with `require(esm)`: Node 20.19 allows it, but Jest (a NestJS project's default
 * test runner) loads modules itself and cannot `require()` ESM, and TypeScript under
 * `"module": "node16"` refuses to type a `require()` of an ESM-only package.
 */
export function libraryBuild(
  entry: Record<string, string>,
  overrides: UserConfig = {},
): UserConfig {
  return {
    entry,
    format: ['esm', 'cjs'],
    platform: 'node',
    target: 'es2022',
    // Declarations written by oxc from each file alone (TypeScript's `isolatedDeclarations`)
    // instead of by a TypeScript program per package: a tenth of the build's time. So every
    // export states its type where inference would need another file (a build that cannot
    // says which export, TS9010 and the like); hover docs of single union members are not kept
    // in the .d.ts (TypeDoc, which reads the sources, keeps them).
    dts: { oxc: true },
    sourcemap: true,
    clean: true,
    // `.js` for ESM (the packages are `"type": "module"`) and `.cjs` for CommonJS, as before.
    fixedExtension: false,
    // Gzip and brotli sizes of every file cost time on each build and nobody reads them here.
    report: false,
    hooks: { 'build:done': failOnMisplacedJsdoc },
    ...overrides,
  };
}

/**
 * Build overrides for a package that inlines the sources of a private workspace folder
 * (`packages/shared-sql` in `@faceverify/postgres` and `@faceverify/cloudflare`): those
 * sources are not in the package's tarball, so its source maps would point at files that do
 * not exist there. They are copied to `dist/<name>/` and the maps point at the copies.
 */
export function shipInlinedSources(packageDir: string, sourcesDir: string): UserConfig {
  const from = resolve(packageDir, sourcesDir);
  const name = basename(dirname(from));
  const outDir = join(packageDir, 'dist');
  // Both formats finish a build at about the same time: one copy serves them.
  let copying: Promise<void> | undefined;
  const copy = () => {
    copying ??= cp(from, join(outDir, name), {
      recursive: true,
      filter: (path) => !path.endsWith('.test.ts'),
    }).finally(() => {
      copying = undefined;
    });
    return copying;
  };
  return {
    outputOptions: {
      sourcemapPathTransform: (source, sourcemapPath) => {
        const file = resolve(dirname(sourcemapPath), source);
        const inside = relative(from, file);
        if (inside.startsWith('..') || isAbsolute(inside)) return source;
        return relative(dirname(sourcemapPath), join(outDir, name, inside))
          .split(sep)
          .join('/');
      },
    },
    hooks: {
      'build:done': async (context) => {
        await failOnMisplacedJsdoc(context);
        await copy();
      },
    },
  };
}
