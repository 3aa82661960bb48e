import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./receiver-process.mjs', import.meta.url));

/** The receiver process on PostgresStore with a transactional handler (crash test). */
export const POSTGRES_SCRIPT = fileURLToPath(
  new URL('./postgres-receiver-process.mjs', import.meta.url),
);

/** A receiver running as its own OS process (see receiver-process.mjs). */
export interface ReceiverProcess {
  readonly child: ChildProcess;
  /** Peak resident set size so far, in bytes (Linux: VmHWM). */
  peakRss(): number;
  /**
   * How the process ended before anyone killed it (`exit 1`, `SIGABRT`), or undefined while
   * it runs or when it ended by `kill()`: a crash the test must report.
   */
  crashed(): string | undefined;
  kill(signal: NodeJS.Signals): Promise<void>;
}

function vmHwm(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
    return kib ? Number(kib) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Starts a receiver process and resolves once it listens. */
export function startReceiverProcess(
  env: Record<string, string>,
  script = SCRIPT,
): Promise<ReceiverProcess> {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Through the test's console, not inherited: Vitest then prints a child's log only when the
  // test that started it fails, as it does for the test's own output.
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    console.error(`[receiver ${child.pid}] ${text.trimEnd()}`);
  });
  let peak = 0;
  let killed = false;
  const handle: ReceiverProcess = {
    child,
    peakRss() {
      peak = Math.max(peak, vmHwm(child.pid));
      return peak;
    },
    crashed() {
      if (killed) return undefined;
      if (child.exitCode !== null) return `exit ${child.exitCode}`;
      return child.signalCode ?? undefined;
    },
    async kill(signal) {
      handle.peakRss();
      if (child.exitCode !== null || child.signalCode !== null) return;
      killed = true;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(signal);
      await exited;
    },
  };
  return new Promise((resolve, reject) => {
    const early = (code: number | null) =>
      reject(new Error(`receiver process exited early (${code})`));
    child.once('exit', early);
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) {
        child.off('exit', early);
        resolve(handle);
      }
    });
  });
}

/** `pid: how it ended` for every process in `processes` that ended without being killed. */
export function crashesOf(processes: readonly ReceiverProcess[]): string[] {
  return processes.flatMap((process) => {
    const crash = process.crashed();
    return crash ? [`${process.child.pid}: ${crash}`] : [];
  });
}
