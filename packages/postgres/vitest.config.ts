import { faceverifyProject } from '../../vitest.project.ts';

export default faceverifyProject('postgres', {
  // Starts the real PostgreSQL server every test file talks to; fails the run when missing.
  globalSetup: ['test/global-setup.ts'],
});
