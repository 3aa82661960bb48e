import { faceverifyProject } from '../../vitest.project.ts';

// The first run installs Node 22 and Miniflare from the npm registry (then cached).
export default faceverifyProject('cloudflare', { hookTimeout: 300_000 });
