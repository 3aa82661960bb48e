export { type CliIO, EXIT } from './cli-io.js';
export { runCli } from './run-cli.js';
export {
  type BodyChange,
  diagnoseSignature,
  type SignatureDiagnosis,
} from './signature-diagnosis.js';
