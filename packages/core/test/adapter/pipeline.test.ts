import { describe, it } from 'vitest';
import { pipelineCases } from '../portable/pipeline.cases.js';

describe('webhook pipeline', () => {
  for (const testCase of pipelineCases) it(testCase.name, testCase.run);
});
