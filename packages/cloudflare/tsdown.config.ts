import { defineConfig } from 'tsdown';
import { libraryBuild, shipInlinedSources } from '../../build/library-config.ts';

export default defineConfig(
  libraryBuild(
    { index: 'src/index.ts' },
    shipInlinedSources(import.meta.dirname, '../shared-sql/src'),
  ),
);
