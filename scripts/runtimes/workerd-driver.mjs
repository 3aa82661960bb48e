// Loads the Worker bundle into workerd through Miniflare, requests it once and prints the case
// lines it answers with, like a process entry would. Runs under Node 22 or later (Miniflare 4
// requires it), with Miniflare from the runtimes cache rather than the workspace.
//
// usage: node workerd-driver.mjs <miniflare install dir> <worker bundle> <compatibility date>
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [installDir, scriptPath, compatibilityDate] = process.argv.slice(2);
if (!installDir || !scriptPath || !compatibilityDate) {
  console.error('usage: workerd-driver.mjs <miniflare dir> <worker bundle> <compatibility date>');
  process.exit(2);
}

const requireFromCache = createRequire(join(installDir, 'package.json'));
const { Miniflare } = await import(pathToFileURL(requireFromCache.resolve('miniflare')).href);

const mf = new Miniflare({
  modules: true,
  scriptPath,
  // Module names are paths relative to this root; the default (the working directory) would
  // need `..` to reach a bundle elsewhere, which workerd refuses.
  modulesRoot: dirname(scriptPath),
  compatibilityDate,
  // No compatibilityFlags, deliberately: without `nodejs_compat` a Worker cannot import any
  // node: module, so passing here proves the Worker build needs none.
});

let code = 1;
try {
  const response = await mf.dispatchFetch('http://localhost/');
  const text = await response.text();
  if (!response.ok)
    throw new Error(`the Worker answered ${response.status}: ${text.slice(0, 2000)}`);
  const result = JSON.parse(text);
  for (const line of result.lines) console.log(line);
  code = result.failed === 0 ? 0 : 1;
} catch (error) {
  console.error(
    `workerd: could not run the cases: ${error instanceof Error ? error.stack : error}`,
  );
} finally {
  // A runtime that never started cannot be disposed cleanly; the error above is the one to show.
  await mf.dispose().catch(() => {});
}
process.exit(code);
