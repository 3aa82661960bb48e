#!/usr/bin/env node
import { fileURLToPath, pathToFileURL } from 'node:url';
// What several accounts on one Receiver cost (the `accounts` option):
//   - CPU per `receiver.receive()` of a distinct, correctly signed 2 KiB webhook, in process,
//     for a Receiver of one account (the baseline), one of a fixed map of 1,000 accounts, and
//     one whose 1,000 accounts come from a resolver (cached), the webhooks spread over all
//     accounts, each signed with its own account's secret;
//   - the memory a resolver's cache holds per account, and the resolver calls, when 10,000
//     accounts are used once each through a cache of 1,000 (least recently used dropped).
// In process rather than over HTTP, as telemetry.bench.mjs: the framework would drown the
// difference. CPU time of this process per call, in rounds that rotate the order of the
// variants. The built packages are measured: run `pnpm build` first.
//
// usage: node bench/accounts.bench.mjs [--quick] [--rounds=N] [--sample-ms=N] [--warmup-ms=N]
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { benchOptions, machineInfo, median, table, writeResults } from './harness.mjs';
import { bodyFactory, SECRET, signHex } from './lib/webhook-bodies.mjs';

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const entry = (file) =>
  pathToFileURL(fileURLToPath(new URL(`../packages/core/dist/${file}.js`, import.meta.url))).href;
const { createReceiver, MemoryStore } = await import(entry('index'));

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');

const ACCOUNTS = 1_000;
const TOKEN_KEY = 'bench-accounts-token-key-0123456789abcdef';
const secretOf = (index) => `whsec_bench_account_${index}_0123456789`;
const idOf = (index) => `tenant-${index}`;
const configOf = (index) => ({
  secret: secretOf(index),
  client: { apiKey: `fv_test_bench_${index}`, baseUrl: 'http://127.0.0.1:9' },
});

// Short windows, so the store's memory stays level over the run, as in telemetry.bench.mjs.
const COMMON = {
  store: undefined,
  replayWindowMs: 1000,
  sessionLifetimeMs: 1000,
  logger: false,
  untrackedWebhooks: 'deliver',
};

/** A `receive()` of the next distinct body, for the next account in turn; true when delivered. */
function receiving(tag, options, accounts) {
  const receiver = createReceiver({ ...COMMON, ...options, store: new MemoryStore() });
  receiver.on('verification.completed', () => undefined);
  const body = bodyFactory({ tag });
  let n = 0;
  return async () => {
    const index = n % accounts;
    const bytes = body(n++);
    const answer = await receiver.receive({
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-webhook-signature': signHex(bytes, accounts === 1 ? SECRET : secretOf(index)),
      },
      body: bytes,
      ...(accounts === 1 ? {} : { account: idOf(index) }),
    });
    return answer.status === 200;
  };
}

const settings = benchOptions();
const machine = machineInfo(ROOT);
const fixed = Object.fromEntries(
  Array.from({ length: ACCOUNTS }, (_, index) => [idOf(index), configOf(index)]),
);
const variants = {
  'one account': receiving('one', { secret: SECRET, client: false }, 1),
  [`a map of ${ACCOUNTS.toLocaleString('en')} accounts`]: receiving(
    'map',
    { accounts: fixed, tokenKeys: [TOKEN_KEY] },
    ACCOUNTS,
  ),
  [`a resolver of ${ACCOUNTS.toLocaleString('en')} accounts (cached)`]: receiving(
    'resolver',
    {
      accounts: {
        resolve: (id) => configOf(Number(id.slice('tenant-'.length))),
        // Every account is new once: the budget for strangers' ids is not what is measured.
        maxResolvesPerMinute: 1_000_000,
      },
      tokenKeys: [TOKEN_KEY],
    },
    ACCOUNTS,
  ),
};
const names = Object.keys(variants);
for (const name of names) {
  if (!(await variants[name]())) throw new Error(`${name}: the webhook was not delivered`);
}

/** CPU time (user + system) of this process per call of `fn`, over `calls` calls, in µs. */
async function cpuPerCall(fn, calls) {
  const before = process.cpuUsage();
  for (let i = 0; i < calls; i++) await fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}

const calls = Math.max(ACCOUNTS, Math.round(settings.sampleMs * 20));
const warmEnd = performance.now() + settings.warmupMs;
// Every account is resolved (and its client built) during the warm-up, not in a sample.
for (const name of names) await cpuPerCall(variants[name], ACCOUNTS);
while (performance.now() < warmEnd) for (const name of names) await cpuPerCall(variants[name], 200);
const samples = Object.fromEntries(names.map((name) => [name, []]));
for (let round = 0; round < settings.rounds; round++) {
  const shift = round % names.length;
  for (const name of [...names.slice(shift), ...names.slice(0, shift)]) {
    samples[name].push(await cpuPerCall(variants[name], calls));
  }
}
const base = median(samples['one account']);
const cpu = names.map((variant) => {
  const cpuUs = median(samples[variant]);
  return {
    variant,
    cpuMicrosPerReceive: Number(cpuUs.toFixed(2)),
    ratio: Number((base / cpuUs).toFixed(3)),
    samples: samples[variant].map((us) => Number(us.toFixed(2))),
  };
});

/**
 * The heap a Receiver holds after `webhooks` webhooks, over an idle one: for one account, or
 * for as many accounts as webhooks (each used once) through a resolver with a cache of
 * `cacheSize`, counting the resolver's calls.
 */
async function heldAfter(webhooks, cacheSize) {
  let calls = 0;
  const several = cacheSize !== undefined;
  const receiver = createReceiver({
    ...COMMON,
    store: new MemoryStore(),
    ...(several
      ? {
          accounts: {
            cacheSize,
            maxResolvesPerMinute: 1_000_000,
            resolve: (id) => {
              calls += 1;
              return configOf(Number(id.slice('tenant-'.length)));
            },
          },
          tokenKeys: [TOKEN_KEY],
        }
      : { secret: SECRET, client: false }),
  });
  receiver.on('verification.completed', () => undefined);
  gc();
  const before = process.memoryUsage().heapUsed;
  const body = bodyFactory({ tag: `memory-${several}` });
  for (let index = 0; index < webhooks; index++) {
    const bytes = body(index);
    await receiver.receive({
      method: 'POST',
      headers: { 'x-webhook-signature': signHex(bytes, several ? secretOf(index) : SECRET) },
      body: bytes,
      ...(several ? { account: idOf(index) } : {}),
    });
  }
  gc();
  const held = process.memoryUsage().heapUsed - before;
  // Kept reachable until measured.
  await receiver.stop();
  return { held, calls };
}

/**
 * Accounts used once each through a resolver's cache of 1,000: what the Receiver holds per
 * cached account beyond what one account's Receiver holds after the same webhooks, and the
 * resolver calls (each account once: a miss).
 */
async function cacheMemory(used, cacheSize) {
  const one = await heldAfter(used);
  const several = await heldAfter(used, cacheSize);
  return {
    accountsUsed: used,
    cacheSize,
    resolverCalls: several.calls,
    heapOneAccountBytes: one.held,
    heapSeveralBytes: several.held,
    bytesPerCachedAccount: Math.round((several.held - one.held) / Math.min(used, cacheSize)),
  };
}
const memory = await cacheMemory(process.argv.includes('--quick') ? 2_000 : 10_000, 1_000);

console.log(
  `accounts: receiver.receive() of a signed 2 KiB webhook, CPU time per call, ${settings.rounds} rounds of ${calls} calls`,
);
console.log(
  `\n${table(
    ['Receiver', 'CPU µs/receive', 'ratio to one account'],
    cpu.map((r) => [r.variant, r.cpuMicrosPerReceive.toFixed(1), r.ratio.toFixed(2)]),
  )}`,
);
console.log(
  `\n${memory.accountsUsed} accounts used once each through a cache of ${memory.cacheSize}: ${memory.resolverCalls} resolver calls; heap held ${(memory.heapSeveralBytes / 1024).toFixed(0)} KiB against ${(memory.heapOneAccountBytes / 1024).toFixed(0)} KiB for one account after the same webhooks: ${memory.bytesPerCachedAccount} B per cached account`,
);
const file = writeResults(BENCH_DIR, 'accounts', {
  benchmark: 'accounts',
  description:
    'CPU time per receiver.receive() (built dist) for a Receiver of one account, of a map of 1,000 accounts and of a resolver of 1,000 (cached), webhooks spread over the accounts; medians of rotated rounds; ratio = CPU(one account) / CPU(variant). Memory: heap held per cached account when 10,000 accounts are used once through a cache of 1,000, and the resolver calls.',
  machine,
  settings: { ...settings, callsPerSample: calls },
  results: { cpu, memory },
});
console.log(`\nwrote ${file}`);
