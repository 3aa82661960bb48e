// A bench helper process (the emulator, a sweeping Receiver) spoken to over IPC: forked, asked
// questions by message type, stopped. Shared by sweeps.bench.mjs and client.bench.mjs.
import { fork } from 'node:child_process';

/**
 * Forks `script` and resolves once it says `ready`; `ask(type, fields)` sends a message of
 * `type` and resolves the next answer of the same type (one question of a type at a time).
 */
export function startChild(script, args = []) {
  const child = fork(script, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  /** Answers awaited, by type. */
  const waiting = new Map();
  child.on('message', (/** @type {{ type: string }} */ message) => {
    const waiter = waiting.get(message.type);
    if (waiter) {
      waiting.delete(message.type);
      waiter.resolve(message);
    }
  });
  child.on('exit', (code) => {
    for (const [type, waiter] of waiting) {
      waiter.reject(new Error(`${script} exited (${code}) before its answer to ${type}`));
    }
    waiting.clear();
  });
  const next = (type) => new Promise((resolve, reject) => waiting.set(type, { resolve, reject }));
  return next('ready').then((ready) => ({
    child,
    ready,
    ask(type, fields = {}) {
      const answer = next(type);
      child.send({ type, ...fields });
      return answer;
    },
    send: (message) => child.send(message),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.send({ type: 'stop' });
      await exited;
      clearTimeout(kill);
    },
  }));
}
