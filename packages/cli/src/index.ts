/**
 * faceverify: send a signed test webhook to your receiver, check your configuration, and find out
 * why a signature does not match.
 *
 * @module @faceverify/cli
 */

export { type CliIO, EXIT } from './cli-io.js';
export { runCli } from './run-cli.js';
export {
  type BodyChange,
  diagnoseSignature,
  type SignatureDiagnosis,
} from './signature-diagnosis.js';
