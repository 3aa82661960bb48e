// Entry bundled for Node, Bun and Deno: runs every portable case, prints one line per case and
// a final `N passed, N failed`, and exits non-zero on any failure.
import { suites } from 'faceverify:portable-suites';
import { runSuites } from './run-cases.mjs';

const result = await runSuites(suites, (line) => console.log(line));
const code = result.failed === 0 ? 0 : 1;
// Exit explicitly: a case that leaves a server or timer behind must not hang the run. Node and
// Bun exit once stdout has drained (writes to a pipe are asynchronous on some platforms).
if (typeof Deno !== 'undefined') Deno.exit(code);
else {
  process.exitCode = code;
  process.stdout.write('', () => process.exit(code));
}
