import { faceverifyProject } from '../../vitest.project.ts';

export default faceverifyProject('relay');
