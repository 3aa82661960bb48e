import { faceverifyProject } from '../../vitest.project.ts';

// Core's test files share no module state (each builds its own Receivers, clocks and stores):
// one module graph per worker instead of one per file takes the run from about 27 s to 11 s.
export default faceverifyProject('core', { isolate: false });
