import { faceverifyProject } from '../../vitest.project.ts';

export default faceverifyProject('fuzz', { testTimeout: 120000 });
