import { conformanceCases } from '@faceverify/conformance';
import { describe, it } from 'vitest';
import { honoNodeTarget } from './hono-target.js';

for (const mount of ['use', 'route'] as const) {
  describe(`${honoNodeTarget.name}, ${mount === 'use' ? 'app.use()' : 'app.post(path)'}`, () => {
    for (const row of conformanceCases(honoNodeTarget, mount)) it(row.name, row.run);
  });
}
