import { faceverifyProject } from '../../vitest.project.ts';

export default faceverifyProject('reliability', { testTimeout: 120_000 });
