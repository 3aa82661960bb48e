import { faceverifyProject } from '../../vitest.project.ts';

export default faceverifyProject('demo', { testTimeout: 90_000, hookTimeout: 180_000 });
