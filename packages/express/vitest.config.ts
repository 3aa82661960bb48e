import { faceverifyProject } from '../../vitest.project.ts';

const project = faceverifyProject('express');

// Vitest hands the SSR conditions to Node as `--conditions`. With "import" among them,
// require() inside Express 5's router loads the ESM build of a dual package (is-promise)
// and gets a namespace object instead of a function, so Express 5 cannot route at all.
export default {
  ...project,
  ssr: {
    ...project.ssr,
    resolve: {
      ...project.ssr?.resolve,
      conditions: (project.ssr?.resolve?.conditions ?? []).filter((name) => name !== 'import'),
    },
  },
};
