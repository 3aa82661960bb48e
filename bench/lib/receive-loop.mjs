#!/usr/bin/env node
// CPU time per `receiver.receive()` of one build of the library, in process: no network, no
// framework, no load generator sharing the CPU. Run in a fresh process per measurement by
// revisions.bench.mjs, once with each revision's packages.
//
// usage: node receive-loop.mjs <packages dir> <valid|wrong|unsigned> [calls]
// prints: {"cpuMicrosPerReceive": <number>, "statuses": [<status>]}
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bodyFactory, deliveryHeaders, SECRET } from './webhook-bodies.mjs';

const [packages, signing, callsText = '20000'] = process.argv.slice(2);
const calls = Number(callsText);
const WARMUP = 2000;
const { createReceiver, MemoryStore } = await import(
  pathToFileURL(join(packages, 'core', 'dist', 'index.js')).href
);
const receiver = createReceiver({ secret: SECRET, client: false, store: new MemoryStore() });
receiver.on('verification.completed', () => undefined);

const body = bodyFactory({ tag: 'loop' });
// Every request made first, so that only the Receiver's work is timed; signed as the HTTP
// benchmark's requests are.
const requests = Array.from({ length: WARMUP + calls }, (_, n) => {
  const bytes = body(n);
  return {
    method: 'POST',
    headers: deliveryHeaders(bytes, n, signing),
    body: new Uint8Array(bytes),
  };
});
const statuses = new Set();
for (let i = 0; i < WARMUP; i++) statuses.add((await receiver.receive(requests[i])).status);
const started = process.cpuUsage();
for (let i = WARMUP; i < requests.length; i++) {
  statuses.add((await receiver.receive(requests[i])).status);
}
const used = process.cpuUsage(started);
console.log(
  JSON.stringify({
    cpuMicrosPerReceive: (used.user + used.system) / calls,
    statuses: [...statuses],
  }),
);
