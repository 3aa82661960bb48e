#!/usr/bin/env node
// Whether sweeps scale with instances: the polls per second of 1, 2 and 4 Receiver instances
// (separate processes, as a deployment runs them) sweeping one store, RedisStore and then
// PostgresStore, that holds N open sessions of the emulator, all due; the speedup at 2 and 4
// instances over one, and the backlog an instance reports at the end.
//
// The sessions are created in the emulator (pending, never completed) and tracked once per
// store. Every instance polls with `pollScheduleMs: [0]`: a session polled and still pending
// is due again at once, so all N stay due the whole run and the instances keep polling them,
// the least recently polled first. A configuration is measured once each of its instances has
// made `--warmup-polls` polls (its code compiled, its connections open), until they have made
// N polls together (about one poll of every session) or the window's limit passed, whichever
// comes first; then instance 0's `receiver.health()` gives the backlog (`store.backlog`: due
// count, oldest due age), and the instances stop.
//
// Each configuration runs once per `--service-latency-ms` value. At 0 the instances reach the
// emulator directly: a poll costs only CPU, so on a small machine the instances compete for
// cores. Above 0 they reach it through bench/lib/delay-proxy.mjs, which holds every request
// that long, as a remote service's round trip would: then, as in production, a sweep's pace is
// sweepConcurrency / latency, and the instances' CPU per poll shows whether they share the work
// or repeat it.
//
// usage: node --import tsx bench/sweeps.bench.mjs [--quick] [--rounds=N] [--sessions=N]
//          [--instances=1,2,4] [--stores=redis,postgres] [--window-s=N] [--warmup-polls=N]
//          [--sweep-interval-ms=N] [--batch=N] [--concurrency=N] [--service-latency-ms=0,50]
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort, startPostgresServer, startRedisServer } from '@faceverify/test-support/servers';
import { Redis } from 'ioredis';
import pg from 'pg';
import { machineInfo, median, packageVersions, table, writeResults } from './harness.mjs';
import { startChild } from './lib/child-process.mjs';
import { startDelayProxy } from './lib/delay-proxy.mjs';

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const entry = (name) =>
  pathToFileURL(fileURLToPath(new URL(`../packages/${name}/dist/index.js`, import.meta.url))).href;
const EMULATOR = fileURLToPath(new URL('./lib/emulator-process.mjs', import.meta.url));
const INSTANCE = fileURLToPath(new URL('./lib/sweep-receiver.mjs', import.meta.url));
const HOUR = 60 * 60 * 1000;
const STORE_NAMES = { redis: 'RedisStore', postgres: 'PostgresStore' };
/** The goal: 2 instances poll at least this many times as fast as one. */
const SPEEDUP_GOAL_AT_2 = 1.8;
/** The longest a warm-up may take, however few polls the instances made. */
const WARM_UP_LIMIT_S = 30;

function options() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      sessions: { type: 'string' },
      instances: { type: 'string' },
      stores: { type: 'string' },
      'window-s': { type: 'string' },
      'warmup-polls': { type: 'string' },
      'sweep-interval-ms': { type: 'string' },
      batch: { type: 'string' },
      concurrency: { type: 'string' },
      'service-latency-ms': { type: 'string' },
    },
    // run-all passes every bench the same arguments; the ones this bench does not know are not its.
    strict: false,
  });
  const quick = values.quick === true;
  const number = (text, fallback) => (text === undefined ? fallback : Number(text));
  return {
    rounds: number(values.rounds, quick ? 1 : 2),
    sessions: number(values.sessions, quick ? 1000 : 50_000),
    instances: values.instances ? String(values.instances).split(',').map(Number) : [1, 2, 4],
    stores: values.stores ? String(values.stores).split(',') : ['redis', 'postgres'],
    windowS: number(values['window-s'], quick ? 5 : 90),
    // Polls each instance makes before the window opens (its code compiled, its connections
    // open), whatever the machine's load; at most WARM_UP_LIMIT_S.
    warmupPolls: number(values['warmup-polls'], quick ? 50 : 500),
    // Each instance as deployed, but sweeping again 10 ms after a sweep ends (5 s by default),
    // so that the timer's wait does not hide what the sweep itself costs.
    sweepIntervalMs: number(values['sweep-interval-ms'], 10),
    sweepBatchSize: number(values.batch, 100),
    sweepConcurrency: number(values.concurrency, 4),
    // The service's answer time seen by the instances (0: the emulator at once, on loopback).
    serviceLatenciesMs: String(values['service-latency-ms'] ?? '0,50')
      .split(',')
      .map(Number),
  };
}

/** Busy and total jiffies of every core, from /proc/stat (Linux); `null` elsewhere. */
function cpuTimes() {
  try {
    const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
    const values = fields.map(Number);
    const idle = values[3] + (values[4] ?? 0);
    const total = values.reduce((sum, value) => sum + value, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

// ---- the stores --------------------------------------------------------------------------------

/** A store server, what instances connect with, and a Receiver of this process to seed it. */
async function openStore(kind) {
  const prefix = `sweeps_${Date.now().toString(36)}_`;
  if (kind === 'redis') {
    const { RedisStore } = await import(entry('redis'));
    const server = await startRedisServer();
    const redis = new Redis(server.url, { maxRetriesPerRequest: 2 });
    const version = (await redis.info('server')).match(/redis_version:(\S+)/)?.[1] ?? null;
    return {
      version,
      url: server.url,
      prefix: `${prefix.slice(0, -1)}:`,
      store: new RedisStore({ redis, prefix: `${prefix.slice(0, -1)}:` }),
      async close() {
        await redis.quit();
        await server.stop();
      },
    };
  }
  const { PostgresStore } = await import(entry('postgres'));
  const server = await startPostgresServer();
  const pool = new pg.Pool({ connectionString: server.url(), max: 10 });
  pool.on('error', () => {});
  const version = (await pool.query('SHOW server_version')).rows[0].server_version;
  const store = new PostgresStore({ pool, prefix });
  await store.migrate();
  return {
    version,
    url: server.url(),
    prefix,
    store,
    async close() {
      await pool.end();
      await server.stop();
    },
  };
}

/** Receiver options every instance and the seeding Receiver share. */
function receiverOptions(settings) {
  return {
    // Polled and still pending, a session is due again at once: all N stay due.
    pollScheduleMs: [0],
    // No session's lifetime ends within the run.
    sessionLifetimeMs: 12 * HOUR,
    sweepIntervalMs: settings.sweepIntervalMs,
    sweepBatchSize: settings.sweepBatchSize,
    sweepConcurrency: settings.sweepConcurrency,
  };
}

/** Tracks every token in `opened.store` with a Receiver of this process, 100 at a time. */
async function seed({ core, opened, emulator, tokens, settings }) {
  const receiver = core.createReceiver({
    ...receiverOptions(settings),
    secret: emulator.signingSecret,
    client: { apiKey: emulator.apiKey, baseUrl: emulator.url },
    store: opened.store,
    logger: false,
  });
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < tokens.length) {
      const i = next++;
      await receiver.track(tokens[i], `user_sweep_${i}`);
    }
  };
  await Promise.all(Array.from({ length: 100 }, worker));
  const seconds = (performance.now() - started) / 1000;
  const { store } = await receiver.health();
  if (store.backlog?.due !== tokens.length) {
    throw new Error(`seeded ${tokens.length} sessions but ${store.backlog?.due} are due`);
  }
  return { receiver, seconds };
}

// ---- one configuration -------------------------------------------------------------------------

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** `count` instances sweeping the store until N polls or the window's end. */
async function measureConfiguration({
  kind,
  count,
  latencyMs,
  opened,
  emulator,
  baseUrl,
  settings,
  seeded,
}) {
  const instanceSettings = JSON.stringify({
    store: kind,
    url: opened.url,
    prefix: opened.prefix,
    baseUrl,
    apiKey: emulator.apiKey,
    secret: emulator.signingSecret,
    receiver: receiverOptions(settings),
  });
  const instances = await Promise.all(
    Array.from({ length: count }, () => startChild(INSTANCE, [instanceSettings])),
  );
  try {
    const backlogBefore = (await seeded.health()).store.backlog;
    const stats = () => Promise.all(instances.map((instance) => instance.ask('stats')));
    const emulatorCpu = async () => (await emulator.process.ask('stats')).cpuMicros;
    for (const instance of instances) instance.send({ type: 'go' });
    const warming = performance.now();
    for (;;) {
      await sleep(100);
      const warm = (await stats()).every((s) => s.polls >= settings.warmupPolls);
      if (warm || performance.now() - warming >= WARM_UP_LIMIT_S * 1000) break;
    }
    const start = { at: performance.now(), stats: await stats(), emulator: await emulatorCpu() };
    const machineStart = cpuTimes();
    const polled = (list) => list.reduce((sum, s) => sum + s.polls, 0);
    const startPolls = polled(start.stats);
    let end;
    for (;;) {
      await sleep(250);
      const now = { at: performance.now(), stats: await stats() };
      const done = polled(now.stats) - startPolls >= settings.sessions;
      if (done || now.at - start.at >= settings.windowS * 1000) {
        end = { ...now, emulator: await emulatorCpu(), reason: done ? 'N polls' : 'window' };
        break;
      }
    }
    const machineEnd = cpuTimes();
    const { health } = await instances[0].ask('health');
    const seconds = (end.at - start.at) / 1000;
    const perInstance = instances.map((_, i) => ({
      polls: end.stats[i].polls - start.stats[i].polls,
      cpuMicros: end.stats[i].cpuMicros - start.stats[i].cpuMicros,
    }));
    const polls = perInstance.reduce((sum, p) => sum + p.polls, 0);
    const failed = end.stats.reduce((sum, s) => sum + s.failedPolls + s.errors, 0);
    const handled = end.stats.reduce((sum, s) => sum + s.handlerCalls, 0);
    if (failed > 0) throw new Error(`${kind} x${count}: ${failed} polls failed or errors raised`);
    if (handled > 0) throw new Error(`${kind} x${count}: a pending session was delivered`);
    if (perInstance.some((p) => p.polls === 0)) {
      throw new Error(`${kind} x${count}: an instance polled nothing in the window`);
    }
    const result = {
      instances: count,
      seconds: Number(seconds.toFixed(2)),
      endedBy: end.reason,
      polls,
      pollsPerSecond: Math.round(polls / seconds),
      perInstancePolls: perInstance.map((p) => p.polls),
      instanceCpuMicrosPerPoll: Number(
        (perInstance.reduce((sum, p) => sum + p.cpuMicros, 0) / Math.max(1, polls)).toFixed(1),
      ),
      emulatorCpuLoad: Number(((end.emulator - start.emulator) / (seconds * 1e6)).toFixed(2)),
      machineBusy:
        machineStart && machineEnd
          ? Number(
              (
                (machineEnd.busy - machineStart.busy) /
                Math.max(1, machineEnd.total - machineStart.total)
              ).toFixed(2),
            )
          : null,
      backlogBefore,
      backlogAtEnd: health.store.backlog ?? null,
    };
    console.log(
      `  ${STORE_NAMES[kind]}, service latency ${latencyMs} ms, ${count} instance${count > 1 ? 's' : ''}: ${result.pollsPerSecond} polls/s over ${result.seconds} s ` +
        `(${result.endedBy}; per instance ${result.perInstancePolls.join(' / ')}), ${result.instanceCpuMicrosPerPoll} µs CPU per poll, emulator load ${result.emulatorCpuLoad}, ` +
        `machine busy ${result.machineBusy ?? '–'}; backlog at the end ${result.backlogAtEnd?.due} due, oldest ${result.backlogAtEnd?.oldestDueAgeMs} ms`,
    );
    return result;
  } finally {
    await Promise.all(instances.map((instance) => instance.stop()));
  }
}

// ---- the run -----------------------------------------------------------------------------------

async function main() {
  const settings = options();
  for (const name of ['core', 'emulator', ...settings.stores]) {
    if (!existsSync(new URL(`../packages/${name}/dist/index.js`, import.meta.url))) {
      console.error(
        `packages/${name}/dist is missing: run \`pnpm build\` first (\`pnpm bench:sweeps\` does).`,
      );
      process.exit(1);
    }
  }
  const machine = machineInfo(ROOT);
  const core = await import(entry('core'));
  console.log(
    `sweeps: polls per second of ${settings.instances.join(', ')} Receiver processes sweeping one store of ` +
      `${settings.sessions.toLocaleString('en-US')} open sessions, all due, against the emulator\n` +
      `${machine.cpu} x${machine.cpuCount}, Node ${machine.node}; ${settings.rounds} round${settings.rounds > 1 ? 's' : ''}, ` +
      `sweepBatchSize ${settings.sweepBatchSize}, sweepConcurrency ${settings.sweepConcurrency}, sweepIntervalMs ${settings.sweepIntervalMs}, ` +
      `service latency ${settings.serviceLatenciesMs.join(', ')} ms\n`,
  );
  // The proxies stand before the emulator, which must know their addresses (it answers only
  // to its own `Host` names): its port is chosen first, then the proxies, then it starts.
  const emulatorPort = await freePort();
  const proxies = new Map();
  for (const latencyMs of settings.serviceLatenciesMs.filter((ms) => ms > 0)) {
    proxies.set(latencyMs, await startDelayProxy({ targetPort: emulatorPort, delayMs: latencyMs }));
  }
  const emulatorProcess = await startChild(EMULATOR, [
    JSON.stringify({
      port: emulatorPort,
      allowedHosts: [...proxies.values()].map((proxy) => `127.0.0.1:${proxy.port}`),
    }),
  ]);
  const emulator = { ...emulatorProcess.ready, process: emulatorProcess };
  /** Where the instances send their polls, by service latency. */
  const baseUrlFor = (latencyMs) =>
    latencyMs === 0 ? emulator.url : `http://127.0.0.1:${proxies.get(latencyMs).port}`;
  const rows = [];
  const versions = {};
  const seeding = {};
  try {
    const creating = performance.now();
    const { tokens } = await emulatorProcess.ask('sessions', { count: settings.sessions });
    console.log(
      `  ${tokens.length.toLocaleString('en-US')} sessions created in the emulator in ${((performance.now() - creating) / 1000).toFixed(1)} s`,
    );
    for (const kind of settings.stores) {
      const opened = await openStore(kind);
      versions[kind] = opened.version;
      try {
        const seeded = await seed({ core, opened, emulator, tokens, settings });
        seeding[kind] = Number(seeded.seconds.toFixed(1));
        console.log(`  ${STORE_NAMES[kind]}: tracked in ${seeding[kind]} s`);
        for (let round = 0; round < settings.rounds; round++) {
          // Alternating order: drift (the store's growing tables, the machine) falls on all alike.
          const order = round % 2 === 0 ? settings.instances : [...settings.instances].reverse();
          for (const latencyMs of settings.serviceLatenciesMs) {
            for (const count of order) {
              const result = await measureConfiguration({
                kind,
                count,
                latencyMs,
                opened,
                emulator,
                baseUrl: baseUrlFor(latencyMs),
                settings,
                seeded: seeded.receiver,
              });
              rows.push({ store: kind, serviceLatencyMs: latencyMs, round, ...result });
            }
          }
        }
      } finally {
        await opened.close();
      }
    }
  } finally {
    await Promise.all([...proxies.values()].map((proxy) => proxy.close()));
    await emulatorProcess.stop();
  }

  const configurations = settings.stores.flatMap((kind) =>
    settings.serviceLatenciesMs.map((latencyMs) => ({ kind, latencyMs })),
  );
  const summary = configurations.map(({ kind, latencyMs }) => {
    const of = (count) =>
      rows.filter(
        (r) => r.store === kind && r.serviceLatencyMs === latencyMs && r.instances === count,
      );
    const perCount = settings.instances.map((count) => ({
      instances: count,
      pollsPerSecond: Math.round(median(of(count).map((r) => r.pollsPerSecond))),
      instanceCpuMicrosPerPoll: median(of(count).map((r) => r.instanceCpuMicrosPerPoll)),
      backlogAtEnd: of(count).at(-1)?.backlogAtEnd ?? null,
      emulatorCpuLoad: median(of(count).map((r) => r.emulatorCpuLoad)),
      machineBusy: of(count).every((r) => r.machineBusy !== null)
        ? median(of(count).map((r) => r.machineBusy))
        : null,
    }));
    const one = perCount.find((p) => p.instances === 1)?.pollsPerSecond;
    const speedups = Object.fromEntries(
      perCount
        .filter((p) => p.instances !== 1 && one)
        .map((p) => {
          // The same round's figures, so the range shows how steady the rounds were.
          const perRound = of(p.instances).map(
            (r) => r.pollsPerSecond / of(1).find((base) => base.round === r.round)?.pollsPerSecond,
          );
          return [
            p.instances,
            {
              speedup: Number((p.pollsPerSecond / one).toFixed(2)),
              roundRange: [
                Number(Math.min(...perRound).toFixed(2)),
                Number(Math.max(...perRound).toFixed(2)),
              ],
            },
          ];
        }),
    );
    return {
      store: kind,
      serviceLatencyMs: latencyMs,
      seedingSeconds: seeding[kind],
      perCount,
      speedups,
    };
  });
  console.log(
    `\n${table(
      [
        'store',
        'latency ms',
        'instances',
        'polls/s',
        'speedup',
        'CPU µs/poll',
        'emulator load',
        'machine busy',
        'backlog due',
        'oldest due s',
      ],
      summary.flatMap((s) =>
        s.perCount.map((p) => [
          STORE_NAMES[s.store],
          String(s.serviceLatencyMs),
          String(p.instances),
          p.pollsPerSecond.toLocaleString('en-US'),
          p.instances === 1 ? '1.00' : (s.speedups[p.instances]?.speedup.toFixed(2) ?? '–'),
          p.instanceCpuMicrosPerPoll.toFixed(0),
          p.emulatorCpuLoad.toFixed(2),
          p.machineBusy === null ? '–' : p.machineBusy.toFixed(2),
          String(p.backlogAtEnd?.due ?? '–'),
          p.backlogAtEnd?.oldestDueAgeMs == null
            ? '–'
            : (p.backlogAtEnd.oldestDueAgeMs / 1000).toFixed(1),
        ]),
      ),
    )}`,
  );
  // The goal is judged where CPU, not a service's latency, sets the pace (as it always was).
  const measuredAt2 = summary.filter((s) => s.serviceLatencyMs === 0 && s.speedups[2]);
  const goals = {
    speedupAt2: {
      description: `2 instances poll at least ${SPEEDUP_GOAL_AT_2}x as many sessions per second as one, on every store`,
      factor: SPEEDUP_GOAL_AT_2,
      measured: Object.fromEntries(measuredAt2.map((s) => [s.store, s.speedups[2].speedup])),
      met:
        measuredAt2.length === 0
          ? null
          : measuredAt2.every((s) => s.speedups[2].speedup >= SPEEDUP_GOAL_AT_2),
    },
  };
  const { speedupAt2 } = goals;
  console.log(
    `\ngoal: ${speedupAt2.description}: ${speedupAt2.met === null ? 'not measured' : speedupAt2.met ? 'met' : 'NOT met'}`,
  );
  const file = writeResults(BENCH_DIR, 'sweeps', {
    benchmark: 'sweeps',
    description:
      "polls per second of 1, 2 and 4 Receiver processes (built dist, receiver.start(), pollScheduleMs [0] so that every pending session is due again once polled) sweeping one RedisStore or PostgresStore (servers started here) of N sessions created in the emulator (its own process, pending, never completed), all due; each configuration measured from a warm-up until N polls or the window limit, once per service latency (0: the emulator directly; above 0: through a loopback proxy that holds each request that long); polls counted by each instance on its client; CPU per poll = the instances' own CPU time (process.cpuUsage) over their polls; backlog from instance 0 receiver.health().store.backlog at the end; speedup = polls/s over one instance's, medians of alternating rounds.",
    machine,
    loadAverage: loadavg().map((value) => Number(value.toFixed(2))),
    versions: {
      ...packageVersions(ROOT, ['ioredis', 'pg', '@faceverify/emulator']),
      ...(versions.redis ? { redis: versions.redis } : {}),
      ...(versions.postgres ? { postgres: versions.postgres } : {}),
    },
    settings,
    summary,
    rows,
    goals,
  });
  console.log(`results: ${file.slice(ROOT.length)}`);
}

await main();
