// Child processes for the CI scripts: each run's output kept and shown only when it matters,
// and a few at a time, since CI machines have two cores.
import { spawn } from 'node:child_process';

/**
 * Runs a command to its end, keeping what it wrote to stdout and stderr.
 * @param {string} command
 * @param {string[]} args
 * @param {string} cwd
 * @returns {Promise<{ passed: boolean, output: string }>}
 */
export function runCapturing(command, args, cwd) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('close', (code) => resolve({ passed: code === 0, output }));
  });
}

/**
 * Runs every job, `parallel` at a time; resolves whether all of them passed.
 * @param {(() => Promise<boolean>)[]} jobs
 * @param {number} parallel
 * @returns {Promise<boolean>}
 */
export async function runAll(jobs, parallel) {
  const queue = [...jobs];
  const lanes = await Promise.all(
    Array.from({ length: parallel }, async () => {
      let passed = true;
      for (let job = queue.shift(); job; job = queue.shift()) passed = (await job()) && passed;
      return passed;
    }),
  );
  return lanes.every(Boolean);
}
