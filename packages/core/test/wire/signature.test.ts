import { describe, it } from 'vitest';
import { signatureCases } from '../portable/signature.cases.js';

describe('sign and verify', () => {
  for (const testCase of signatureCases) it(testCase.name, testCase.run);
});
