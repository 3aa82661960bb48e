import { defineConfig } from 'tsdown';
import { libraryBuild } from '../../build/library-config.ts';

export default defineConfig(libraryBuild({ index: 'src/index.ts', pglite: 'src/pglite.ts' }));
