import { conformanceCases } from '@faceverify/conformance';
import { describe, it } from 'vitest';
import { fastifyTarget } from './fastify-target.js';

const mountings = { use: 'register()', route: 'register() in a prefixed plugin' } as const;

for (const mount of ['use', 'route'] as const) {
  describe(`${fastifyTarget.name}, ${mountings[mount]}`, () => {
    for (const row of conformanceCases(fastifyTarget, mount)) it(row.name, row.run);
  });
}
