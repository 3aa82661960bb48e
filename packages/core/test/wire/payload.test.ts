import { describe, it } from 'vitest';
import { payloadCases } from '../portable/payload.cases.js';

describe('parseVerificationPayload', () => {
  for (const testCase of payloadCases) it(testCase.name, testCase.run);
});
