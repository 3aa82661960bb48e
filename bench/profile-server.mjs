#!/usr/bin/env node
// Where one bench server's CPU goes: starts bench/lib/http-server.mjs under `node --cpu-prof`,
// loads it with autocannon as http.bench.mjs does, stops it (which writes the profile), and
// prints the functions with the most self time. Not a benchmark: the profiler inflates every
// figure, so compare the shares of two servers profiled alike, never their absolute times.
//
// usage: node bench/profile-server.mjs <framework> <baseline|library|octokit>
//                                      [--signing=valid|wrong|unsigned] [--duration-s=6]
//                                      [--top=30] [--dir=<folder for the .cpuprofile>]
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { startServer } from './lib/child-server.mjs';
import { requestSource } from './lib/webhook-bodies.mjs';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    signing: { type: 'string', default: 'valid' },
    'duration-s': { type: 'string', default: '6' },
    top: { type: 'string', default: '30' },
    dir: { type: 'string' },
  },
});
const [framework, variant] = positionals;
const dir = values.dir ?? mkdtempSync(join(tmpdir(), 'faceverify-profile-'));

const server = await startServer(framework, variant, {
  execArgv: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
});
const source = requestSource({ tag: 'p', signing: values.signing });
const before = await server.stats();
const result = await autocannon({
  url: server.url,
  connections: 50,
  duration: Number(values['duration-s']),
  requests: source.requests,
});
const after = await server.stats();
await server.stop();
const answered = result['2xx'] + result['4xx'];
console.log(
  `${framework}/${variant} (${values.signing}): ${answered} answered, server CPU ` +
    `${((after.cpuMicros - before.cpuMicros) / answered).toFixed(1)} µs/request (profiled)`,
);

/** Self time per function (name, file, line) as a share of all samples. */
function selfTimes(profile) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const { functionName, url, lineNumber } = nodes.get(id).callFrame;
    const where = url ? ` ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}` : '';
    const key = `${functionName || '(anonymous)'}${where}`;
    self.set(key, (self.get(key) ?? 0) + profile.timeDeltas[index]);
    total += profile.timeDeltas[index];
  });
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([name, micros]) => ({ name, share: micros / total }));
}

for (const file of readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'))) {
  console.log(`\n${join(dir, file)}`);
  for (const { name, share } of selfTimes(JSON.parse(readFileSync(join(dir, file), 'utf8'))).slice(
    0,
    Number(values.top),
  )) {
    console.log(`${(share * 100).toFixed(1).padStart(5)}%  ${name}`);
  }
}
