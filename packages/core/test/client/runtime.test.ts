import { describe, it } from 'vitest';
import { clientRuntimeCases } from '../portable/client-runtime.cases.js';

describe('API client runtime detection', () => {
  for (const testCase of clientRuntimeCases) it(testCase.name, testCase.run);
});
