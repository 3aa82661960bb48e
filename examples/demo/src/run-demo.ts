import { formatDuration } from './format-duration.js';
import { FRAMEWORKS } from './frameworks.js';
import { waitForPerson } from './manual-session.js';
import type { DemoOptions } from './options.js';
import { shortCredential } from './redaction.js';
import { runSteps } from './run-steps.js';
import { POLL_SCHEDULE_MS, SWEEP_INTERVAL_MS, VERIFY_LIMIT } from './settings.js';
import { startDemo } from './setup.js';
import { STEPS } from './steps/index.js';
import { printSummary } from './summary-table.js';
import type { Terminal } from './terminal.js';

export const INTERRUPTED_EXIT_CODE = 130;

/**
 * The whole demo. Resolves to the process exit code: 0 when every step passed, 1 when one
 * failed, 130 when interrupted before the end.
 */
export async function runDemo(
  options: DemoOptions & { notWaiting: string | undefined },
  terminal: Terminal,
  signal: AbortSignal,
): Promise<number> {
  const framework = FRAMEWORKS[options.framework];
  const started = performance.now();
  terminal.line(
    terminal.style(
      'bold',
      `faceverify demo: ${framework.label} receiver, local emulator, MemoryStore`,
    ),
  );
  terminal.line();
  const setup = await startDemo(framework, terminal);
  try {
    const { emulator } = setup.context;
    const perSecond = (VERIFY_LIMIT.limit * 1000) / VERIFY_LIMIT.windowMs;
    const rows: Array<[string, string]> = [
      [
        'Emulator',
        `${emulator.url}  API key ${shortCredential(emulator.apiKey)}  signing secret ${shortCredential(emulator.signingSecret)}`,
      ],
      [
        'Receiver',
        `${setup.server.url}  ${framework.folder}, webhook at POST /webhooks/verification`,
      ],
      ['Browser', setup.browserDescription],
      [
        'Rate limit',
        `POST /v1/verify ${perSecond} per second per key (the service: 60 per minute)`,
      ],
      [
        'Polling',
        `first poll ${formatDuration(POLL_SCHEDULE_MS[0])} after a start, a sweep every ${formatDuration(SWEEP_INTERVAL_MS)} (defaults: 1 min, 5 s)`,
      ],
    ];
    for (const [label, value] of rows)
      terminal.line(`  ${terminal.style('dim', label.padEnd(12))}${value}`);

    const outcomes = await runSteps(STEPS, setup.context, signal);
    if (signal.aborted) {
      terminal.line('\nInterrupted.');
      return INTERRUPTED_EXIT_CODE;
    }
    const passed = printSummary(
      terminal,
      `Summary (${framework.label})`,
      STEPS,
      outcomes,
      performance.now() - started,
    );
    if (passed !== STEPS.length) return 1;
    if (options.notWaiting === undefined) await waitForPerson(setup.context, signal);
    else terminal.line(terminal.style('dim', `\nNot waiting for a person: ${options.notWaiting}.`));
    return 0;
  } finally {
    await setup.close();
  }
}
