import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    // Both builds run at once: the CLI's files are left out of the cleaning so neither
    // build can delete the other's output.
    clean: ['!cli.js', '!cli.js.map'],
    sourcemap: true,
    target: 'es2022',
  },
  // The CLI is an ESM executable only: no types, no CommonJS copy. The shebang of
  // src/cli.ts is kept by the bundler.
  {
    entry: { cli: 'src/cli.ts' },
    format: ['esm'],
    sourcemap: true,
    target: 'es2022',
  },
]);
