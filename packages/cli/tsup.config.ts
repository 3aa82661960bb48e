import { defineConfig } from 'tsup';

// ESM only: a command line and the function behind it, for Node.js 20.19 and later.
export default defineConfig({
  entry: { index: 'src/index.ts', main: 'src/main.ts' },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' } },
  clean: true,
  sourcemap: true,
  target: 'es2022',
});
