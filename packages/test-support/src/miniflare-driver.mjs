// Runs Workers in workerd through Miniflare for a test on the host, under Node 22 or later
// (Miniflare 4 needs it), with Miniflare from the runtimes cache rather than the workspace.
// Each Worker gets its own socket on 127.0.0.1. A control server on another port triggers a
// Worker's scheduled() handler on request, so tests decide when a cron event happens.
// Prints `READY <json>` with the addresses once everything answers; stops when stdin closes.
//
// usage: node miniflare-driver.mjs <miniflare install dir>
// The configuration comes as JSON in MINIFLARE_CONFIG (it holds secrets: kept off argv):
//   { compatibilityDate, d1Persist?, workers: [{ name, scriptPath, bindings?, d1Databases? }],
//     migrations?: { module, binding, worker, list: [{ name, sql }] } }
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [installDir] = process.argv.slice(2);
if (!installDir) {
  console.error('usage: miniflare-driver.mjs <miniflare dir>');
  process.exit(2);
}
const config = JSON.parse(process.env.MINIFLARE_CONFIG ?? '{}');

const requireFromCache = createRequire(join(installDir, 'package.json'));
const { Miniflare } = await import(pathToFileURL(requireFromCache.resolve('miniflare')).href);

const mf = new Miniflare({
  host: '127.0.0.1',
  port: 0,
  ...(config.d1Persist ? { d1Persist: config.d1Persist } : {}),
  workers: config.workers.map((worker) => ({
    name: worker.name,
    modules: true,
    scriptPath: worker.scriptPath,
    // Module names are paths relative to this root; workerd refuses `..` in them.
    modulesRoot: dirname(worker.scriptPath),
    compatibilityDate: config.compatibilityDate,
    // No nodejs_compat flag: the Worker must run without any node: module.
    bindings: worker.bindings ?? {},
    d1Databases: worker.d1Databases ?? {},
    unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }],
  })),
});

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  control.close();
  await mf.dispose().catch(() => {});
  process.exit(0);
}
process.stdin.on('end', stop);
process.stdin.resume();
process.on('SIGTERM', stop);

// POST /scheduled {"worker": "...", "cron": "* * * * *"}: runs that Worker's scheduled()
// handler once and answers with its outcome once the event is over.
const control = createServer(async (request, response) => {
  try {
    let body = '';
    for await (const chunk of request) body += chunk;
    if (request.method !== 'POST' || request.url !== '/scheduled') {
      response.writeHead(404).end();
      return;
    }
    const { worker, cron } = JSON.parse(body);
    const fetcher = await mf.getWorker(worker);
    const result = await fetcher.scheduled({ cron, scheduledTime: new Date() });
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
  } catch (error) {
    response
      .writeHead(500, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: error instanceof Error ? error.message : String(error) }));
  }
});

await mf.ready;
if (config.migrations) {
  const { module, binding, worker, list } = config.migrations;
  const { applyMigrations } = await import(pathToFileURL(module).href);
  const applied = await applyMigrations(await mf.getD1Database(binding, worker), list);
  console.log(`MIGRATIONS ${JSON.stringify(applied)}`);
}
const workers = {};
for (const worker of config.workers) {
  workers[worker.name] = (await mf.unsafeGetDirectURL(worker.name)).origin;
}
await new Promise((resolve) => control.listen(0, '127.0.0.1', resolve));
const controlUrl = `http://127.0.0.1:${control.address().port}`;
console.log(`READY ${JSON.stringify({ workers, control: controlUrl })}`);
