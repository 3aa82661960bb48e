import { defineConfig } from 'tsdown';
import { libraryBuild } from '../../tsdown.library.ts';

export default defineConfig(libraryBuild({ index: 'src/index.ts', pglite: 'src/pglite.ts' }));
