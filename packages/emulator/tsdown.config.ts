import { defineConfig } from 'tsdown';
import { libraryBuild } from '../../build/library-config.ts';

// tsdown empties dist/ once before it runs both builds, so neither deletes the other's output.
export default defineConfig([
  libraryBuild({ index: 'src/index.ts' }),
  // The CLI is an ESM executable only: no types, no CommonJS copy. The shebang of
  // src/cli.ts is kept by the bundler.
  libraryBuild({ cli: 'src/cli.ts' }, { format: ['esm'], dts: false }),
]);
