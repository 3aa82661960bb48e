import { conformanceCases } from '@faceverify/conformance';
import Koa from 'koa';
import Koa2 from 'koa2';
import { describe, it } from 'vitest';
import { koaTarget } from './koa-target.js';

const targets = [koaTarget('Koa 3', Koa), koaTarget('Koa 2', Koa2)];

for (const target of targets) {
  for (const mount of ['use', 'route'] as const) {
    const label = `${target.name}, ${mount === 'use' ? 'app.use()' : 'router.post(path)'}`;
    describe(label, () => {
      for (const row of conformanceCases(target, mount)) it(`${row.name} [${label}]`, row.run);
    });
  }
}
