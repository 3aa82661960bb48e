import { faceverifyProject } from '../../vitest.project.ts';

export default faceverifyProject('redis', {
  // Starts the real redis-server every test file talks to; fails the run when it is missing.
  globalSetup: ['test/global-setup.ts'],
});
