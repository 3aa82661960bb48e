import type { DemoContext } from './demo-context.js';
import { formatDuration } from './format-duration.js';
import type { Step, StepResult } from './steps/step.js';

export interface StepOutcome extends StepResult {
  step: Step;
  ms: number;
}

/** A step's result, or a failure once it takes too long or the demo is interrupted. */
function settle(
  work: Promise<StepResult>,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<StepResult> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`did not finish within ${formatDuration(timeoutMs)}`)),
      timeoutMs,
    );
    const onAbort = () => reject(new Error('interrupted'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    });
  });
}

/** Runs the steps in order, narrating each; a failed step does not stop the next ones. */
export async function runSteps(
  steps: readonly Step[],
  context: DemoContext,
  signal: AbortSignal,
): Promise<StepOutcome[]> {
  const { terminal } = context;
  const outcomes: StepOutcome[] = [];
  for (const [index, step] of steps.entries()) {
    if (signal.aborted) break;
    terminal.line();
    terminal.line(terminal.style('bold', `[${index + 1}/${steps.length}] ${step.title}`));
    const started = performance.now();
    let result: StepResult;
    try {
      result = await settle(step.run(context), step.timeoutMs, signal);
    } catch (error) {
      result = { passed: false, detail: error instanceof Error ? error.message : String(error) };
    }
    const ms = performance.now() - started;
    terminal.line(
      result.passed
        ? `  ${terminal.style('green', '✔ passed')} in ${formatDuration(ms)}`
        : `  ${terminal.style('red', '✘ failed')}: ${result.detail}`,
    );
    outcomes.push({ ...result, step, ms });
  }
  return outcomes;
}
