import { describe, it } from 'vitest';
import { honoCases } from './portable/hono.cases.js';

describe('Hono middleware (portable cases)', () => {
  for (const testCase of honoCases) it(testCase.name, testCase.run);
});
