import { conformanceCases } from '@faceverify/conformance';
import express from 'express';
import express4 from 'express4';
import { describe, it } from 'vitest';
import { expressTarget } from './express-target.js';

const targets = [expressTarget('Express 5', express), expressTarget('Express 4', express4)];

for (const target of targets) {
  for (const mount of ['use', 'route'] as const) {
    const label = `${target.name}, ${mount === 'use' ? 'app.use()' : 'app.post(path)'}`;
    describe(label, () => {
      for (const row of conformanceCases(target, mount)) it(`${row.name} [${label}]`, row.run);
    });
  }
}
