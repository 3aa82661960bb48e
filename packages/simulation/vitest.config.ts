import { faceverifyProject } from '../../vitest.project.ts';

export default faceverifyProject('simulation', { testTimeout: 120_000 });
