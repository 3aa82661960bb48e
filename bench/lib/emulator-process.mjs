#!/usr/bin/env node
// The emulator (@faceverify/emulator, built) in a process of its own for bench/sweeps.bench.mjs,
// so that the service's CPU time is its own and the benchmark can report it. It tells the
// parent its URL and credentials over IPC, creates sessions on `sessions` (answering their
// tokens), and answers `stats` (its CPU time) and `stop`.
//
// usage (by sweeps.bench.mjs): node emulator-process.mjs ['{ "port": N, "allowedHosts": [...] }']
import { fileURLToPath, pathToFileURL } from 'node:url';

const { startEmulator } = await import(
  pathToFileURL(fileURLToPath(new URL('../../packages/emulator/dist/index.js', import.meta.url)))
    .href
);
const HOUR = 60 * 60 * 1000;
/**
 * Where it listens and the further `Host` names it answers to: the parent's delay proxies,
 * which stand before it on ports of their own.
 * @type {{ port?: number, allowedHosts?: string[] }}
 */
const listening = JSON.parse(process.argv[2] ?? '{}');
const emulator = await startEmulator({
  ...listening,
  // Sessions are created in bulk, and polled for the whole run: no limit and no expiry gets
  // in the way. The limiter keeps each request's time within its window and scans them on
  // every request: a window of 1 ms keeps that scan short.
  rateLimits: { verify: { limit: 1_000_000_000, windowMs: 1 } },
  sessionTtlMs: 12 * HOUR,
  seed: 'bench-sweeps',
});

/** Creates `count` pending sessions, `concurrency` at a time; resolves their tokens in order. */
async function createSessions(count, concurrency = 32) {
  const tokens = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      tokens[i] = (await emulator.createSession({ externalUserId: `user_sweep_${i}` })).token;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return tokens;
}

process.on('message', async (/** @type {{ type: string, count?: number }} */ message) => {
  if (message.type === 'sessions') {
    process.send({ type: 'sessions', tokens: await createSessions(message.count) });
  } else if (message.type === 'stats') {
    const cpu = process.cpuUsage();
    process.send({ type: 'stats', cpuMicros: cpu.user + cpu.system });
  } else if (message.type === 'stop') {
    await emulator.close();
    process.exit(0);
  }
});
process.on('disconnect', () => process.exit(0));
process.send({
  type: 'ready',
  url: emulator.url,
  apiKey: emulator.apiKey,
  signingSecret: emulator.signingSecret,
});
