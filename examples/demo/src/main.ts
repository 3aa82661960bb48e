import { notWaitingBecause, parseOptions, USAGE } from './options.js';
import { INTERRUPTED_EXIT_CODE, runDemo } from './run-demo.js';
import { createTerminal } from './terminal.js';

const USAGE_EXIT_CODE = 2;

let options: ReturnType<typeof parseOptions>;
try {
  options = parseOptions(process.argv.slice(2));
} catch (error) {
  console.error(`demo: ${error instanceof Error ? error.message : error}\n\n${USAGE}`);
  process.exit(USAGE_EXIT_CODE);
}
if (options.help) {
  console.log(USAGE);
  process.exit(0);
}

const terminal = createTerminal();
const controller = new AbortController();
const stop = () => {
  // A second Ctrl+C while shutting down means "now".
  if (controller.signal.aborted) process.exit(INTERRUPTED_EXIT_CODE);
  terminal.line('\nStopping…');
  controller.abort();
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

const code = await runDemo(
  { ...options, notWaiting: notWaitingBecause(process.env, process.stdin.isTTY === true) },
  terminal,
  controller.signal,
).catch((error: unknown) => {
  terminal.line(
    `\n${terminal.style('red', 'The demo could not run:')} ${error instanceof Error ? (error.stack ?? error.message) : error}`,
  );
  return 1;
});
// Exiting explicitly: the browser driver and keep-alive sockets must not hold the process open.
process.exit(code);
