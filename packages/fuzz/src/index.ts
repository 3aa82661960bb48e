export { CATEGORIES, type CaseBuilder, drawCases, type FuzzCase } from './cases.js';
export { memoryBound } from './memory.js';
export { formatReport } from './report.js';
export {
  type AdapterReport,
  describeCase,
  type FuzzOptions,
  type FuzzReport,
  runFuzz,
  type Violation,
} from './run.js';
export { ADAPTERS, type AdapterName, startAdapter } from './servers.js';
