import { formatDuration } from './format-duration.js';
import type { StepOutcome } from './run-steps.js';
import type { Step } from './steps/step.js';
import type { Terminal } from './terminal.js';

const HEADERS = ['#', 'Step', 'Result', 'Time', 'Detail'] as const;

/** Prints one row per step (including steps that never ran) and the count that passed. */
export function printSummary(
  terminal: Terminal,
  title: string,
  steps: readonly Step[],
  outcomes: readonly StepOutcome[],
  totalMs: number,
): number {
  const rows = steps.map((step, index) => {
    const outcome = outcomes.find((candidate) => candidate.step === step);
    return [
      String(index + 1),
      step.name,
      outcome ? (outcome.passed ? 'passed' : 'FAILED') : 'not run',
      outcome ? formatDuration(outcome.ms) : '',
      outcome?.detail ?? '',
    ];
  });
  const widths = HEADERS.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => row[column]?.length ?? 0)),
  );
  const render = (cells: readonly string[], colorResult: boolean) =>
    `  ${cells
      .map((cell, column) => {
        const padded = cell.padEnd(widths[column] ?? 0);
        if (!colorResult || column !== 2) return padded;
        return terminal.style(cell === 'passed' ? 'green' : 'red', padded);
      })
      .join('  ')
      .trimEnd()}`;

  terminal.line();
  terminal.line(terminal.style('bold', title));
  terminal.line(terminal.style('dim', render(HEADERS, false)));
  for (const row of rows) terminal.line(render(row, true));
  const passed = outcomes.filter((outcome) => outcome.passed).length;
  const verdict = `${passed} of ${steps.length} steps passed in ${formatDuration(totalMs)}`;
  terminal.line();
  terminal.line(`  ${terminal.style(passed === steps.length ? 'green' : 'red', verdict)}`);
  return passed;
}
