// Serves a Worker bundle from workerd through Miniflare on a free port of 127.0.0.1, with cron
// triggers callable over HTTP (GET /cdn-cgi/handler/scheduled). Prints `READY <url>` once it
// answers, and stops when its stdin closes. Runs under Node 22 or later, which Miniflare 4
// needs, with Miniflare from the runtimes cache rather than the workspace.
//
// usage: node miniflare-driver.mjs <miniflare install dir> <worker bundle> <compatibility date>
// The Worker's bindings come as JSON in MINIFLARE_BINDINGS, kept off the command line.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [installDir, scriptPath, compatibilityDate] = process.argv.slice(2);
if (!installDir || !scriptPath || !compatibilityDate) {
  console.error('usage: miniflare-driver.mjs <miniflare dir> <worker bundle> <compatibility date>');
  process.exit(2);
}

const requireFromCache = createRequire(join(installDir, 'package.json'));
const { Miniflare } = await import(pathToFileURL(requireFromCache.resolve('miniflare')).href);

const mf = new Miniflare({
  modules: true,
  scriptPath,
  modulesRoot: dirname(scriptPath),
  compatibilityDate,
  // No nodejs_compat flag: the Worker must run without any node: module.
  bindings: JSON.parse(process.env.MINIFLARE_BINDINGS ?? '{}'),
  host: '127.0.0.1',
  port: 0,
  unsafeTriggerHandlers: true,
});

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await mf.dispose().catch(() => {});
  process.exit(0);
}
process.stdin.on('end', stop);
process.stdin.resume();
process.on('SIGTERM', stop);

const url = await mf.ready;
console.log(`READY ${url.origin}`);
