import { describe, it } from 'vitest';
import { receiverCases } from '../portable/receiver.cases.js';

describe('Receiver.receive', () => {
  for (const testCase of receiverCases) it(testCase.name, testCase.run);
});
