import { conformanceCases } from '@faceverify/conformance';
import { describe, it } from 'vitest';
import { fetchNodeTarget } from './fetch-target.js';

// A Fetch handler is mounted on its route by the platform (a Next.js route file, Bun's
// `routes`, a Worker's own routing): there is no app-wide mount to test.
describe(`${fetchNodeTarget.name}, on its route`, () => {
  for (const row of conformanceCases(fetchNodeTarget, 'route')) it(row.name, row.run);
});
