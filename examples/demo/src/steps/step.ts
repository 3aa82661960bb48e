import type { DemoContext } from '../demo-context.js';

export interface StepResult {
  passed: boolean;
  /** One line for the summary table. */
  detail: string;
}

/** One scene of the demo: it narrates what happens and checks that it did. */
export interface Step {
  title: string;
  /** A shorter title for the summary table. */
  name: string;
  timeoutMs: number;
  run(context: DemoContext): Promise<StepResult>;
}
