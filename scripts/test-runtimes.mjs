#!/usr/bin/env node
// Runs the portable test cases (packages/*/test/portable/*.cases.ts) on Node 24, Node 22, Bun,
// Deno and workerd, and writes .runtimes-report.json for CI. Runtimes come from the npm
// registry and are cached under node_modules/.cache/faceverify-runtimes.
//
// usage: node scripts/test-runtimes.mjs [--only=node24,bun,...] [--refresh] [--verbose]
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundleTarget, discoverCaseFiles } from './runtimes/bundle.mjs';
import { binCandidates, ensureInstalled, installedVersion, tail } from './runtimes/provision.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CACHE_DIR = join(ROOT, 'node_modules', '.cache', 'faceverify-runtimes');
// One folder per run: several checkouts' runs (or a developer's and an editor's) may overlap.
const BUNDLES_ROOT = join(CACHE_DIR, 'bundles');
const BUNDLE_DIR = join(BUNDLES_ROOT, String(process.pid));
const REPORT_PATH = join(ROOT, '.runtimes-report.json');
const DRIVER = fileURLToPath(new URL('./runtimes/workerd-driver.mjs', import.meta.url));
const RUN_TIMEOUT_MS = 3 * 60_000;

const { values: options } = parseArgs({
  options: {
    only: { type: 'string' },
    refresh: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

/**
 * Installs a package into its cache folder once per run, however many runtimes need it
 * (Node 22 runs its own cases and also hosts Miniflare).
 */
const installs = new Map();
function install(folder, spec, binName, nodeBinDir) {
  if (!installs.has(folder)) {
    const started = Date.now();
    const dir = join(CACHE_DIR, folder);
    const promise = ensureInstalled({
      dir,
      spec,
      candidates: (installDir) => binCandidates(installDir, binName),
      nodeBinDir,
      refresh: options.refresh,
    }).then((result) => {
      const how = result.installed
        ? `installed from the npm registry in ${((Date.now() - started) / 1000).toFixed(1)} s`
        : 'cached';
      console.log(`  ${spec.padEnd(12)} ${result.versionOutput.split('\n')[0]} (${how})`);
      return result;
    });
    installs.set(folder, promise);
  }
  return installs.get(folder);
}

/**
 * A promise's outcome as a value, so that one failed download or bundle is reported and the
 * other runtimes still run.
 * @template T
 * @param {Promise<T>} promise
 * @returns {Promise<{ value: T, error?: undefined } | { value?: undefined, error: Error }>}
 */
function settled(promise) {
  return promise.then(
    (value) => ({ value }),
    (error) => ({ error }),
  );
}

function firstLine(text) {
  return text.split('\n')[0].trim();
}

/**
 * Each runtime: how to get it and how to run a bundle on it. `prepare` resolves to the version
 * shown in the report and the command line for a bundle.
 */
const RUNTIMES = [
  {
    id: 'node24',
    name: 'Node 24',
    target: 'node',
    async prepare() {
      const node = await install('node24', 'node@24', 'node');
      return {
        version: node.versionOutput,
        command: (bundle) => [node.bin, '--enable-source-maps', bundle],
      };
    },
  },
  {
    id: 'node22',
    name: 'Node 22',
    target: 'node',
    async prepare() {
      const node = await install('node22', 'node@22', 'node');
      return {
        version: node.versionOutput,
        command: (bundle) => [node.bin, '--enable-source-maps', bundle],
      };
    },
  },
  {
    id: 'bun',
    name: 'Bun',
    target: 'bun',
    async prepare() {
      const bun = await install('bun', 'bun@1', 'bun');
      return {
        version: firstLine(bun.versionOutput),
        // No auto-install and no .env: the bundle must run on its own.
        command: (bundle) => [bun.bin, 'run', '--no-install', '--no-env-file', bundle],
      };
    },
  },
  {
    id: 'deno',
    name: 'Deno',
    target: 'deno',
    async prepare() {
      const deno = await install('deno', 'deno@2', 'deno');
      return {
        version: firstLine(deno.versionOutput)
          .replace(/^deno\s+/, '')
          .split(' ')[0],
        // Only environment access (the Receiver reads its defaults from it). A case that needs
        // more (network, files) must be granted it here, visibly.
        command: (bundle) => [
          deno.bin,
          'run',
          '--no-config',
          '--no-lock',
          '--no-remote',
          '--no-npm',
          '--no-prompt',
          '--allow-env',
          bundle,
        ],
        env: { DENO_DIR: join(CACHE_DIR, 'deno-dir'), DENO_NO_UPDATE_CHECK: '1' },
      };
    },
  },
  {
    id: 'workerd',
    name: 'workerd',
    target: 'workerd',
    async prepare() {
      // Miniflare 4 needs Node 22 or later both to install (npm would otherwise pick an old
      // release whose engines match the Node running it) and to run.
      const node = await install('node22', 'node@22', 'node');
      const nodeBinDir = join(node.bin, '..');
      const workerd = await install('miniflare', 'miniflare@4', 'workerd', nodeBinDir);
      // `workerd --version` prints the newest compatibility date it supports.
      const compatibilityDate = workerd.versionOutput.match(/\d{4}-\d{2}-\d{2}/)?.[0];
      if (!compatibilityDate) {
        throw new Error(`cannot read a date from \`workerd --version\`: ${workerd.versionOutput}`);
      }
      const miniflareVersion = installedVersion(workerd.dir, 'miniflare');
      const workerdVersion = installedVersion(workerd.dir, 'workerd');
      return {
        version: `${workerdVersion} (miniflare ${miniflareVersion}, compat ${compatibilityDate})`,
        command: (bundle) => [node.bin, DRIVER, workerd.dir, bundle, compatibilityDate],
      };
    },
  },
];

if (options.help) {
  console.log(
    'usage: node scripts/test-runtimes.mjs [--only=<ids>] [--refresh] [--verbose]\n\n' +
      `  --only     comma-separated runtimes: ${RUNTIMES.map((r) => r.id).join(', ')}\n` +
      '  --refresh  reinstall the cached runtimes from the npm registry\n' +
      '  --verbose  show every case, not only failures and the summary',
  );
  process.exit(0);
}

const selected = options.only
  ? options.only.split(',').map((id) => id.trim())
  : RUNTIMES.map((runtime) => runtime.id);
const unknown = selected.filter((id) => !RUNTIMES.some((runtime) => runtime.id === id));
if (unknown.length > 0) {
  console.error(
    `Unknown runtime ${unknown.join(', ')}; known: ${RUNTIMES.map((r) => r.id).join(', ')}`,
  );
  process.exit(2);
}
const runtimes = RUNTIMES.filter((runtime) => selected.includes(runtime.id));

let activeChild;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    killGroup(activeChild);
    process.exit(130);
  });
}

function killGroup(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  try {
    // The runtime's whole process group: Miniflare starts workerd as a child of its own.
    process.kill(process.platform === 'win32' ? child.pid : -child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/**
 * Runs one runtime's bundle, echoing its lines as they come (only failures and the summary
 * unless --verbose), and keeps its output to parse.
 * @param {string[]} commandLine
 * @param {Record<string, string> | undefined} env
 */
function runStreaming(commandLine, env) {
  const [command = '', ...args] = commandLine;
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let pending = '';
    let timedOut = false;
    let inFailure = false;
    const echo = (line) => {
      if (line.startsWith('✗ ')) inFailure = true;
      else if (!line.startsWith('    ')) inFailure = false;
      if (options.verbose || inFailure || /^\d+ passed, \d+ failed$/.test(line)) {
        console.log(`    ${line}`);
      }
    };
    const child = spawn(command, args, {
      cwd: BUNDLE_DIR,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
    });
    activeChild = child;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, RUN_TIMEOUT_MS);
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk;
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop();
      for (const line of lines) echo(line);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr, error: error.message });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      activeChild = undefined;
      if (pending) echo(pending);
      const error = timedOut
        ? `did not finish within ${RUN_TIMEOUT_MS / 1000} s`
        : signal
          ? `killed by ${signal}`
          : undefined;
      resolve({ code, stdout, stderr, error });
    });
  });
}

/** Counts and failures from the lines the runner prints (see runtimes/run-cases.mjs). */
function parseOutput(stdout) {
  const summaries = [...stdout.matchAll(/^(\d+) passed, (\d+) failed$/gm)];
  const summary = summaries.at(-1);
  const failures = [];
  let current;
  for (const line of stdout.split('\n')) {
    if (line.startsWith('✗ ')) {
      current = { name: line.slice(2).replace(/ \(\d+ ms\)$/, ''), error: '' };
      failures.push(current);
    } else if (current && line.startsWith('    ')) {
      current.error += `${current.error ? '\n' : ''}${line.slice(4)}`;
    } else {
      current = undefined;
    }
  }
  return summary
    ? { passed: Number(summary[1]), failed: Number(summary[2]), failures }
    : { passed: 0, failed: 0, failures, incomplete: true };
}

async function main() {
  const startedAt = Date.now();
  const caseFiles = discoverCaseFiles(ROOT);
  if (caseFiles.length === 0) {
    console.error('No portable case files found (packages/*/test/portable/*.cases.ts).');
    return 1;
  }
  console.log(`Portable case files (${caseFiles.length}):`);
  for (const caseFile of caseFiles) console.log(`  ${caseFile.file}`);

  removeStaleBundles();
  mkdirSync(BUNDLE_DIR, { recursive: true });
  console.log(`\nRuntimes (cached in ${relative(ROOT, CACHE_DIR)}):`);
  // Downloads and builds all start at once; runs then go one at a time, so output stays readable.
  const prepared = new Map(runtimes.map((runtime) => [runtime.id, settled(runtime.prepare())]));
  const bundles = new Map(
    [...new Set(runtimes.map((runtime) => runtime.target))].map((target) => [
      target,
      settled(bundleTarget(target, { root: ROOT, outDir: BUNDLE_DIR, caseFiles })),
    ]),
  );
  await Promise.all([...prepared.values(), ...bundles.values()]);

  const results = [];
  for (const runtime of runtimes) {
    const started = Date.now();
    const entry = { id: runtime.id, name: runtime.name, version: null, passed: 0, failed: 0 };
    results.push(entry);
    const fail = (reason) => {
      entry.status = 'error';
      entry.error = reason;
      console.log(`    cannot run on ${runtime.name}: ${reason.replaceAll('\n', '\n    ')}`);
    };

    console.log(`\n${runtime.name}`);
    const setup = await prepared.get(runtime.id);
    const bundle = await bundles.get(runtime.target);
    if (setup.error) {
      fail(`could not get the runtime: ${setup.error.message}`);
    } else if (bundle.error) {
      entry.version = setup.value.version;
      fail(`could not bundle the cases for ${runtime.target}: ${bundle.error.message}`);
    } else if (bundle.value.nodeImports.length > 0) {
      entry.version = setup.value.version;
      const list = bundle.value.nodeImports.map(
        (found) => `${found.specifier} (from ${found.importer})`,
      );
      fail(
        `the Worker bundle imports Node built-ins, which workerd cannot load without nodejs_compat:\n${list.join('\n')}`,
      );
    } else {
      entry.version = setup.value.version;
      console.log(`    version ${entry.version}`);
      if (runtime.target === 'workerd') {
        const size = statSync(bundle.value.outfile).size;
        console.log(`    Worker bundle: ${(size / 1024).toFixed(1)} KiB, no node: imports`);
      }
      const run = await runStreaming(setup.value.command(bundle.value.outfile), setup.value.env);
      const parsed = parseOutput(run.stdout);
      Object.assign(entry, {
        passed: parsed.passed,
        failed: parsed.failed,
        failures: parsed.failures,
      });
      const problem =
        run.error ??
        (parsed.incomplete
          ? `exited with code ${run.code} before printing its summary`
          : run.code !== 0 && parsed.failed === 0
            ? `exited with code ${run.code} although every case passed`
            : undefined);
      if (problem) fail(`${problem}${run.stderr.trim() ? `\n${tail(run.stderr)}` : ''}`);
      else entry.status = parsed.failed === 0 ? 'passed' : 'failed';
    }
    entry.durationMs = Date.now() - started;
  }

  printTable(results);
  const numFailedTests =
    results.reduce((sum, r) => sum + r.failed, 0) +
    // A runtime that could not run counts as one failed test, so CI's totals cannot look green.
    results.filter((r) => r.status === 'error').length;
  const numPassedTests = results.reduce((sum, r) => sum + r.passed, 0);
  const report = {
    numPassedTests,
    numFailedTests,
    numTotalTests: numPassedTests + numFailedTests,
    success: numFailedTests === 0,
    startTime: startedAt,
    durationMs: Date.now() - startedAt,
    caseFiles: caseFiles.map((caseFile) => caseFile.file),
    runtimes: results,
  };
  writeFileSync(REPORT_PATH, `${JSON.stringify(report, null, 2)}\n`);
  // Bundles of a failed run stay for debugging: stack traces point into them.
  if (report.success) rmSync(BUNDLE_DIR, { recursive: true, force: true });
  else console.log(`\nBundles kept for debugging in ${relative(ROOT, BUNDLE_DIR)}`);
  console.log(
    `\n${numPassedTests} passed, ${numFailedTests} failed on ${results.length} runtime${results.length === 1 ? '' : 's'} in ${((Date.now() - startedAt) / 1000).toFixed(1)} s` +
      ` (report: ${relative(ROOT, REPORT_PATH)})`,
  );
  return report.success ? 0 : 1;
}

/** Removes bundle folders of earlier runs whose process is gone. */
function removeStaleBundles() {
  let entries = [];
  try {
    entries = readdirSync(BUNDLES_ROOT);
  } catch {
    return;
  }
  for (const name of entries) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ESRCH')
        rmSync(join(BUNDLES_ROOT, name), { recursive: true, force: true });
    }
  }
}

function printTable(results) {
  const rows = [
    ['runtime', 'version', 'passed', 'failed', 'status'],
    ...results.map((r) => [r.name, r.version ?? '-', String(r.passed), String(r.failed), r.status]),
  ];
  const widths = rows[0].map((_, col) => Math.max(...rows.map((row) => row[col].length)));
  const numeric = [false, false, true, true, false];
  console.log('');
  rows.forEach((row, index) => {
    console.log(
      row
        .map((cell, col) => (numeric[col] ? cell.padStart(widths[col]) : cell.padEnd(widths[col])))
        .join('  ')
        .trimEnd(),
    );
    if (index === 0) console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  });
}

process.exitCode = await main().catch((error) => {
  console.error(error);
  return 1;
});
