// Starts bench/lib/http-server.mjs in a child process and talks to it over IPC.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SERVER = fileURLToPath(new URL('./http-server.mjs', import.meta.url));

/**
 * What the server reports on `stats` and `gc`: requests handled, memory (`process.memoryUsage()`
 * in bytes), and CPU time used.
 * @typedef {{ handled: number, rss: number, heapUsed: number, heapTotal: number,
 *   external: number, arrayBuffers: number, cpuMicros: number, gcExposed: boolean }} ServerStats
 */

/**
 * @param {string} framework
 * @param {string} variant
 * @param {{ args?: string[], execArgv?: string[], execPath?: string, server?: string }} [options]
 *   `execPath` runs the server with another runtime (Bun); `server` is another checkout's
 *   http-server.mjs (revisions.bench.mjs)
 * @returns {Promise<{ pid: number, url: string, stats(): Promise<ServerStats>, gc(): Promise<ServerStats>,
 *   stop(): Promise<void> }>}
 */
export function startServer(
  framework,
  variant,
  { args = [], execArgv = [], execPath, server = SERVER } = {},
) {
  const child = fork(server, [framework, variant, ...args], {
    // Another runtime (Bun) speaks Node's IPC too; it takes no Node flags.
    ...(execPath ? { execPath, execArgv: [] } : { execArgv }),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = [];
  child.on('message', (/** @type {{ type: string }} */ message) => {
    if (message.type === 'stats') waiting.shift()?.(message);
  });
  const ask = (type) =>
    new Promise((resolve, reject) => {
      waiting.push(resolve);
      child.send({ type }, (error) => error && reject(error));
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`${framework}/${variant} server did not start within 15 s`));
    }, 15_000);
    child.once('exit', (code) => reject(new Error(`${framework}/${variant} exited (${code})`)));
    child.once('message', (/** @type {{ type: string, port: number }} */ message) => {
      clearTimeout(timer);
      if (message.type !== 'ready') return reject(new Error(`unexpected ${message.type}`));
      child.removeAllListeners('exit');
      resolve({
        pid: child.pid,
        url: `http://127.0.0.1:${message.port}`,
        stats: () => ask('stats'),
        gc: () => ask('gc'),
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
            child.once('exit', () => {
              clearTimeout(kill);
              done();
            });
            child.send({ type: 'stop' });
          }),
      });
    });
  });
}
