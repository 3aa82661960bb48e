import { conformanceCases } from '@faceverify/conformance';
import { describe, it } from 'vitest';
import { honoNodeTarget } from './hono-target.js';

for (const mount of ['use', 'route'] as const) {
  const label = `${honoNodeTarget.name}, ${mount === 'use' ? 'app.use()' : 'app.post(path)'}`;
  describe(label, () => {
    for (const row of conformanceCases(honoNodeTarget, mount))
      it(`${row.name} [${label}]`, row.run);
  });
}
