import type { CliIO } from './cli-io.js';

/** Lines of `faceverify doctor`'s checks: ✔ passed, ✖ failed (then its fix), ! a note. */
export interface Report {
  pass(line: string): void;
  fail(line: string, fix?: string): void;
  note(line: string): void;
  failed: boolean;
}

export function report(io: CliIO): Report {
  const result: Report = {
    failed: false,
    pass: (line) => io.out(`✔ ${line}`),
    fail: (line, fix) => {
      result.failed = true;
      io.out(`✖ ${line}`);
      if (fix) io.out(`  ${fix}`);
    },
    note: (line) => io.out(`! ${line}`),
  };
  return result;
}
