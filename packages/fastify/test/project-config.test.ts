import { expect, it } from 'vitest';

it('runs under the fastify project config from the workspace list', () => {
  expect(process.env.FACEVERIFY_TEST_PROJECT).toBe('fastify');
});
