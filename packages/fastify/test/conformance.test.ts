import { conformanceCases } from '@faceverify/conformance';
import Fastify from 'fastify';
import Fastify50 from 'fastify5.0';
import { describe, it } from 'vitest';
import { fastifyTarget } from './fastify-target.js';

const targets = [
  fastifyTarget(`Fastify ${Fastify().version}`, Fastify),
  // The lowest release the peer range allows.
  fastifyTarget(`Fastify ${Fastify50().version}`, Fastify50),
];
const mountings = { use: 'register()', route: 'register() in a prefixed plugin' } as const;

for (const target of targets) {
  for (const mount of ['use', 'route'] as const) {
    const label = `${target.name}, ${mountings[mount]}`;
    describe(label, () => {
      for (const row of conformanceCases(target, mount)) it(`${row.name} [${label}]`, row.run);
    });
  }
}
