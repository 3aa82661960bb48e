import { defineConfig } from 'tsdown';
import { libraryBuild } from '../../build/library-config.ts';

// ESM only: a command (and the function behind it) for Node.js 20.19 and later, where no
// CommonJS caller needs it.
export default defineConfig(
  libraryBuild({ index: 'src/index.ts', main: 'src/main.ts' }, { format: ['esm'] }),
);
