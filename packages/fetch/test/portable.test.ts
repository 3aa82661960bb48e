import { describe, it } from 'vitest';
import { fetchCases } from './portable/fetch.cases.js';

describe('Fetch handler (portable cases)', () => {
  for (const testCase of fetchCases) it(testCase.name, testCase.run);
});
