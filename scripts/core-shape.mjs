#!/usr/bin/env node
// Prints the shape of packages/core/src, to compare the code before and after a restructuring:
// files and lines per folder, imports and cycles between folders (and files), the names each
// entry point exports, the `return` statements of the webhook decision and the places in it
// that name an answer's row, and with `--trace` what one webhook runs: the source files and
// functions, the calls V8 counted, the promises made, the timers armed, the Proxy traps and
// the clock reads. Folders are read, never named here, so the same command runs on any layout.
//
// usage: node scripts/core-shape.mjs [--json] [--trace [--names]] [--decision <file>[,<file>...]]
//   --names     with --trace, the name of each function that ran (and its calls), per file
//   --decision  files (relative to packages/core/src) whose returns are counted; by default
//               every file whose path contains "webhook", plus DECISION_FILES
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CORE = join(ROOT, 'packages', 'core');
const SRC = join(CORE, 'src');
const SOURCE_CONDITION = '@faceverify/source';
const CODE_FILE = /\.[cm]?[jt]sx?$/;
/** The type of a row's name in the answer table; rows named are counted when it exists. */
const ROW_TYPE = 'AnswerName';
/** Decision files beside those named "webhook"; counted when they exist. */
const DECISION_FILES = [
  'receiver/webhook/receive-webhook.ts',
  'adapter/refusal-answer.ts',
  'adapter/webhook-pipeline.ts',
  'receiver/create-receiver.ts',
];

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    trace: { type: 'boolean', default: false },
    names: { type: 'boolean', default: false },
    decision: { type: 'string' },
  },
});

/** Paths of every file under `dir`, relative to it with `/`, sorted. */
function listFiles(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}

/** The top-level folder of a path under src; files directly in src belong to `(root)`. */
function folderOf(file) {
  return file.includes('/') ? file.slice(0, file.indexOf('/')) : '(root)';
}

/** Each `exports` entry of packages/core/package.json with a source condition, as a src path. */
function entryPoints() {
  const manifest = JSON.parse(readFileSync(join(CORE, 'package.json'), 'utf8'));
  return Object.entries(manifest.exports ?? {})
    .filter(([, target]) => typeof target?.[SOURCE_CONDITION] === 'string')
    .map(([entry, target]) => ({ entry, file: join(CORE, target[SOURCE_CONDITION]) }));
}

/** The entry points as paths under src, as the import graph names files. */
const ENTRY_FILES = new Set(
  entryPoints().map(({ file }) => relative(SRC, file).split(sep).join('/')),
);

function countLines(text) {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function sum(rows, key) {
  return rows.reduce((total, row) => total + row[key], 0);
}

function parse(file) {
  const text = readFileSync(join(SRC, file), 'utf8');
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
}

// --- 1. Files and lines per folder ---

function foldersOf(files) {
  const folders = new Map();
  for (const file of files) {
    const folder = folderOf(file);
    const row = folders.get(folder) ?? { folder, files: 0, lines: 0 };
    row.files += 1;
    row.lines += countLines(readFileSync(join(SRC, file), 'utf8'));
    folders.set(folder, row);
  }
  const rows = [...folders.values()].sort((a, b) => a.folder.localeCompare(b.folder));
  return { rows, total: { files: sum(rows, 'files'), lines: sum(rows, 'lines') } };
}

// --- 2. Imports between folders, and cycles ---

/** The compiler options of packages/core/tsconfig.json, or what it would say. */
function compilerOptions() {
  const tsconfig = join(CORE, 'tsconfig.json');
  const fallback = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    customConditions: [SOURCE_CONDITION],
    skipLibCheck: true,
  };
  if (!existsSync(tsconfig)) return fallback;
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined };
  return ts.getParsedCommandLineOfConfigFile(tsconfig, {}, host)?.options ?? fallback;
}

/** Module specifiers of a file's import and export-from declarations, `import type` included. */
function specifiersOf(sourceFile) {
  return sourceFile.statements
    .filter((node) => ts.isImportDeclaration(node) || ts.isExportDeclaration(node))
    .map((node) => node.moduleSpecifier)
    .filter((specifier) => specifier && ts.isStringLiteral(specifier))
    .map((specifier) => specifier.text);
}

/** Where a specifier leads, as a path under src, or undefined when it leaves src or is not found. */
function resolveInSrc(specifier, file, options) {
  const { resolvedModule } = ts.resolveModuleName(specifier, join(SRC, file), options, ts.sys);
  if (!resolvedModule) return undefined;
  const target = relative(SRC, resolvedModule.resolvedFileName).split(sep).join('/');
  return target.startsWith('..') ? undefined : target;
}

function importGraph(files, options) {
  const fileEdges = new Map(files.map((file) => [file, new Set()]));
  const folderCounts = new Map();
  const unresolved = [];
  const notCounted = new Map();
  for (const file of files.filter((name) => CODE_FILE.test(name))) {
    for (const specifier of specifiersOf(parse(file))) {
      const target = resolveInSrc(specifier, file, options);
      if (!specifier.startsWith('.')) {
        // `#hmac`-style and self imports reach src too; they are named, not drawn as edges.
        if (target) notCounted.set(specifier, (notCounted.get(specifier) ?? 0) + 1);
        continue;
      }
      if (!target) {
        unresolved.push(`${file} -> ${specifier}`);
        continue;
      }
      fileEdges.get(file).add(target);
      // An entry point gathers names from every folder: the package's surface, not a layer.
      if (ENTRY_FILES.has(file)) continue;
      const edge = `${folderOf(file)} -> ${folderOf(target)}`;
      if (folderOf(file) !== folderOf(target)) {
        folderCounts.set(edge, (folderCounts.get(edge) ?? 0) + 1);
      }
    }
  }
  return { fileEdges, folderCounts, unresolved, notCounted };
}

/** Strongly connected components with more than one node (Tarjan), each sorted. */
function cycles(edges) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (node) => {
    index.set(node, index.size);
    low.set(node, index.get(node));
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node), index.get(next)));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found.sort((a, b) => a[0].localeCompare(b[0]));
}

function importsBetweenFolders(files, options) {
  const { fileEdges, folderCounts, unresolved, notCounted } = importGraph(files, options);
  const edges = [...folderCounts.entries()]
    .map(([edge, imports]) => {
      const [from, to] = edge.split(' -> ');
      return { from, to, imports };
    })
    .sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
  const folderEdges = new Map();
  for (const { from, to } of edges) folderEdges.set(from, [...(folderEdges.get(from) ?? []), to]);
  return {
    edges,
    folderCycles: cycles(folderEdges),
    fileCycles: cycles(fileEdges),
    unresolved,
    notCounted: Object.fromEntries([...notCounted.entries()].sort()),
  };
}

// --- 3. Exported names per entry point ---

function exportedNames(options) {
  const entries = entryPoints();
  const program = ts.createProgram(
    entries.map(({ file }) => file),
    { ...options, noEmit: true },
  );
  const checker = program.getTypeChecker();
  const rows = entries.map(({ entry, file }) => {
    const sourceFile = program.getSourceFile(file);
    const moduleSymbol = sourceFile && checker.getSymbolAtLocation(sourceFile);
    const names = moduleSymbol
      ? checker.getExportsOfModule(moduleSymbol).map((symbol) => symbol.getName())
      : [];
    return { entry, file: relative(CORE, file).split(sep).join('/'), names: names.sort() };
  });
  const entriesOf = new Map();
  for (const { entry, names } of rows) {
    for (const name of names) entriesOf.set(name, [...(entriesOf.get(name) ?? []), entry]);
  }
  const shared = [...entriesOf.entries()]
    .filter(([, where]) => where.length > 1)
    .map(([name, where]) => ({ name, entries: where }))
    .sort((a, b) => a.name.localeCompare(b.name));
  const total = rows.reduce((count, row) => count + row.names.length, 0);
  return { entries: rows, total, shared };
}

// --- 4. Return points of the webhook decision ---

function decisionFiles(files) {
  if (values.decision) {
    return values.decision.split(',').map((file) => posix.normalize(file.trim()));
  }
  const chosen = files.filter((file) => file.includes('webhook') || DECISION_FILES.includes(file));
  return chosen.filter((file) => CODE_FILE.test(file));
}

/** The function a unit is: itself with a body, or its initializer (`const f = () => ...`). */
function functionOf(node) {
  if (ts.isFunctionLike(node) && 'body' in node && node.body) return node;
  const initializer = node.initializer;
  return initializer && (ts.isArrowFunction(initializer) || ts.isFunctionExpression(initializer))
    ? initializer
    : undefined;
}

/** Top-level declarations that can hold returns: functions, variables, class members. */
function unitsOf(sourceFile) {
  const units = [];
  for (const statement of sourceFile.statements) {
    if (ts.isFunctionDeclaration(statement)) {
      units.push({ name: statement.name?.text ?? 'default', node: statement });
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        units.push({ name: declaration.name.getText(), node: declaration });
      }
    } else if (ts.isClassDeclaration(statement)) {
      const owner = statement.name?.text ?? 'default';
      for (const member of statement.members) {
        const name = member.name?.getText() ?? 'constructor';
        units.push({ name: `${owner}.${name}`, node: member });
      }
    } else if (ts.isExportAssignment(statement)) {
      units.push({ name: 'default', node: statement.expression });
    }
  }
  return units;
}

/** Returns in a unit: its own, and those of functions nested in it. */
function returnsOf(node) {
  const own = functionOf(node);
  let direct = 0;
  let nested = 0;
  const visit = (child, inOwn) => {
    if (ts.isReturnStatement(child)) {
      if (inOwn) direct += 1;
      else nested += 1;
    }
    const stillOwn = inOwn && !(ts.isFunctionLike(child) && child !== own);
    ts.forEachChild(child, (grandchild) => visit(grandchild, stillOwn));
  };
  visit(node, own !== undefined);
  return { returns: direct + nested, nested };
}

function returnPoints(files) {
  const rows = decisionFiles(files).map((file) => {
    if (!existsSync(join(SRC, file))) return { file, missing: true, returns: 0, functions: [] };
    const functions = unitsOf(parse(file))
      .map(({ name, node }) => ({
        name,
        isFunction: functionOf(node) !== undefined,
        ...returnsOf(node),
      }))
      // Functions are listed even without returns; other declarations only when they hold one.
      .filter((unit) => unit.isFunction || unit.returns > 0)
      .map(({ name, returns, nested }) => ({ name, returns, nested }));
    return { file, missing: false, returns: sum(functions, 'returns'), functions };
  });
  return { files: rows, total: sum(rows, 'returns') };
}

/** The type alias `name` declared in src, as the checker resolves it, or undefined. */
function declaredType(program, checker, name) {
  for (const sourceFile of program.getSourceFiles()) {
    if (relative(SRC, sourceFile.fileName).startsWith('..')) continue;
    for (const statement of sourceFile.statements) {
      if (ts.isTypeAliasDeclaration(statement) && statement.name.text === name) {
        return checker.getTypeAtLocation(statement.name);
      }
    }
  }
  return undefined;
}

/**
 * String literals of the decision files whose contextual type is a row's name: each is a
 * place that picks a row of the answer table (`{ name: 'duplicate' }`, `return 'queued'`,
 * a value of a table from something else to rows), per file and top-level function.
 */
function rowNames(files, options) {
  const chosen = decisionFiles(files).filter((file) => existsSync(join(SRC, file)));
  const program = ts.createProgram(
    chosen.map((file) => join(SRC, file)),
    { ...options, noEmit: true },
  );
  const checker = program.getTypeChecker();
  const rowType = declaredType(program, checker, ROW_TYPE);
  if (!rowType) return { counted: false, type: ROW_TYPE, files: [], total: 0 };
  const rows = chosen.map((file) => {
    const sourceFile = program.getSourceFile(join(SRC, file));
    const functions = [];
    for (const { name, node } of unitsOf(sourceFile)) {
      let places = 0;
      const visit = (child) => {
        const isKey = ts.isPropertyAssignment(child.parent) && child.parent.name === child;
        if (
          ts.isStringLiteralLike(child) &&
          !isKey &&
          checker.getContextualType(child) === rowType
        ) {
          places += 1;
        }
        ts.forEachChild(child, visit);
      };
      visit(node);
      if (places > 0) functions.push({ name, places });
    }
    return { file, places: sum(functions, 'places'), functions };
  });
  const withRows = rows.filter((row) => row.places > 0);
  return { counted: true, type: ROW_TYPE, files: withRows, total: sum(withRows, 'places') };
}

// --- 5. What one webhook runs ---

const EXPRESS = join(ROOT, 'packages', 'express');
const PACKAGES_URL = `${pathToFileURL(join(ROOT, 'packages')).href}/`;
const SETTLE_MS = 200;
const TRACE_SECRET = 'whsec_core_shape_trace_0123456789abcdef';
/**
 * A class keeping many timers on one platform timer, and its methods that start and cancel
 * one of them; counted when src declares and exports it. Each start is a timer armed, as a
 * reader counts them; the platform timer it sets to wake itself is counted apart.
 */
const TIMER_POOL = { className: 'FixedDelayTimers', start: 'start', cancel: 'cancel' };

/** The file under src declaring TIMER_POOL's class, as a URL, or undefined. */
function timerPoolUrl(files) {
  const declaration = new RegExp(`\\bclass\\s+${TIMER_POOL.className}\\b`);
  const file = files
    .filter((name) => CODE_FILE.test(name))
    .find((name) => declaration.test(readFileSync(join(SRC, name), 'utf8')));
  return file && pathToFileURL(join(SRC, file)).href;
}

// Runs in packages/express, so `@faceverify/*` and `express` resolve as that package's
// dependencies, through the source condition to packages/*/src. Both deliveries are signed
// before any measurement, so signing is not counted. v8.takeCoverage() resets V8's counters
// each time it writes a report: the report written right after the measured answer holds the
// counts of that request alone, the next one what ran in the SETTLE_MS after it.
//
// Probes are installed before any package is loaded, so that what src captures at load
// (`Date.now` as a default, `Proxy`) is the probe. While a window is open each notes an event
// with the files under packages/*/src on the stack: a promise created (an async_hooks `init`
// of type PROMISE, with or without such a file), a clock read (`Date.now`,
// `performance.now`), a platform timer set or cleared, a start or cancel of TIMER_POOL, a trap
// of a Proxy that src made. The request is sent with node:http's callbacks, which make no
// promise, so the promises of the window are the server's.
const childScript = (poolUrl) => `
import { createHook } from 'node:async_hooks';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import v8 from 'node:v8';

const PACKAGES = ${JSON.stringify(PACKAGES_URL)};
const POOL = ${JSON.stringify(poolUrl ? { url: poolUrl, ...TIMER_POOL } : null)};

/** The events of the open window, or undefined when none is open. */
let events;

/** The call sites on the stack above \`below\`. */
function stack(below) {
  const { prepareStackTrace, stackTraceLimit } = Error;
  Error.prepareStackTrace = (_, sites) => sites;
  Error.stackTraceLimit = 200;
  const holder = {};
  Error.captureStackTrace(holder, below);
  // Read before restoring: V8 formats the stack when it is first read.
  const sites = holder.stack;
  Error.prepareStackTrace = prepareStackTrace;
  Error.stackTraceLimit = stackTraceLimit;
  return sites;
}

/** The files under packages/<name>/src on the stack, innermost first. */
function srcFrames(sites = stack(srcFrames)) {
  const files = [];
  for (const site of sites) {
    const name = site.getFileName() ?? '';
    const url = name.startsWith('/') ? pathToFileURL(name).href : name;
    if (!url.startsWith(PACKAGES)) continue;
    const path = url.slice(PACKAGES.length);
    if (path.split('/')[1] === 'src') files.push('packages/' + path);
  }
  return files;
}

/** Notes an event: \`at\` the innermost src file, \`from\` the next src file that is another. */
function note(kind, detail, frames = srcFrames()) {
  const at = frames[0];
  events.push({ kind, detail, at, from: frames.find((file) => file !== at), frames });
}

/** Whether the innermost code on the stack outside Node is this script: its own awaits. */
const isOwn = (sites) =>
  sites.find((site) => !(site.getFileName() ?? 'node:').startsWith('node:'))?.getFileName() ===
  import.meta.url;

createHook({
  init: function countPromise(_id, type) {
    if (!events || type !== 'PROMISE') return;
    const sites = stack(countPromise);
    if (!isOwn(sites)) note('promise', undefined, srcFrames(sites));
  },
}).enable();

const readClock = (read, detail) =>
  function now() {
    if (events) {
      const frames = srcFrames();
      if (frames.length > 0) note('clock', detail, frames);
    }
    return read();
  };
Date.now = readClock(Date.now, 'Date.now');
performance.now = readClock(performance.now.bind(performance), 'performance.now');

const timers = createRequire(import.meta.url)('node:timers');
for (const name of ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval']) {
  const platform = globalThis[name];
  const counted = function (...args) {
    if (events) {
      const frames = srcFrames();
      if (frames.length > 0) note(name.startsWith('set') ? 'timer' : 'timer-cleared', name, frames);
    }
    return platform.apply(this, args);
  };
  if (platform[promisify.custom]) counted[promisify.custom] = platform[promisify.custom];
  globalThis[name] = counted;
  timers[name] = counted;
}
syncBuiltinESMExports();

const TRAPS = ['apply', 'construct', 'defineProperty', 'deleteProperty', 'get',
  'getOwnPropertyDescriptor', 'getPrototypeOf', 'has', 'isExtensible', 'ownKeys',
  'preventExtensions', 'set', 'setPrototypeOf'];
const PlatformProxy = Proxy;
/** The handler of a Proxy made in src with each trap counted, noted at the file that made it. */
function countedHandler(handler) {
  const madeIn = srcFrames()[0];
  if (madeIn === undefined) return handler;
  const counted = {};
  for (const trap of TRAPS) {
    const run = handler[trap];
    if (typeof run !== 'function') continue;
    counted[trap] = function (...args) {
      if (events) note('proxy-trap', trap, [madeIn, ...srcFrames()]);
      return run.apply(handler, args);
    };
  }
  return counted;
}
function CountedProxy(target, handler) {
  if (new.target === undefined) throw new TypeError("Constructor Proxy requires 'new'");
  return new PlatformProxy(target, countedHandler(handler));
}
CountedProxy.revocable = (target, handler) =>
  PlatformProxy.revocable(target, countedHandler(handler));
globalThis.Proxy = CountedProxy;

let poolCounted = false;
if (POOL) {
  const pool = (await import(POOL.url))[POOL.className]?.prototype;
  for (const [method, kind] of [[POOL.start, 'pool-start'], [POOL.cancel, 'pool-cancel']]) {
    const run = pool?.[method];
    if (typeof run !== 'function') continue;
    pool[method] = function (...args) {
      if (events) note(kind, POOL.className);
      return run.apply(this, args);
    };
    poolCounted = true;
  }
}

const { createReceiver, MemoryStore } = await import('@faceverify/core');
const { fixturePayload, signedDelivery } = await import('@faceverify/core/testing');
const { verificationWebhook } = await import('@faceverify/express');
const { default: express } = await import('express');

const secret = ${JSON.stringify(TRACE_SECRET)};
const delivered = [];
const receiver = createReceiver({ secret, client: false, store: new MemoryStore() });
const app = express();
app.use(
  verificationWebhook(receiver).on('verification.completed', ({ data }) => {
    delivered.push(data.external_user_id);
  }),
);
const server = app.listen(0, '127.0.0.1');
await once(server, 'listening');
const url = 'http://127.0.0.1:' + server.address().port + '/webhooks/verification';
const sign = (user) => signedDelivery(fixturePayload({ external_user_id: user }), { secret });
const warmUp = await sign('user_warm_up');
const measured = await sign('user_measured');
const agent = new Agent({ keepAlive: true });
/** Sends a delivery, noting events in \`window\` from sending it to the end of its answer. */
const send = (delivery, window) =>
  new Promise((resolve, reject) => {
    events = window;
    const headers = { ...delivery.headers, 'content-length': delivery.body.byteLength };
    const sent = request(url, { method: 'POST', headers, agent }, (answer) => {
      answer.resume();
      answer.on('end', () => {
        events = undefined;
        resolve(answer.statusCode);
      });
    });
    sent.on('error', (error) => {
      events = undefined;
      reject(error);
    });
    sent.end(delivery.body);
  });
const reports = new Set(readdirSync(process.env.NODE_V8_COVERAGE));
const takeReport = () => {
  v8.takeCoverage();
  const added = readdirSync(process.env.NODE_V8_COVERAGE).filter((name) => !reports.has(name));
  added.forEach((name) => reports.add(name));
  return added;
};
const warmUpStatus = await send(warmUp, undefined);
takeReport();
const requestEvents = [];
const status = await send(measured, requestEvents);
const requestReport = takeReport();
const settleEvents = [];
const settling = sleep(${SETTLE_MS});
events = settleEvents;
await settling;
events = undefined;
const settle = takeReport();
agent.destroy();
server.closeAllConnections();
server.close();
console.log(JSON.stringify({
  warmUpStatus, status, delivered, request: requestReport, settle, poolCounted,
  events: { request: requestEvents, settle: settleEvents },
}));
`;

function runChild(coverageDir, poolUrl) {
  return spawnSync(
    process.execPath,
    [
      `--conditions=${SOURCE_CONDITION}`,
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      childScript(poolUrl),
    ],
    {
      cwd: EXPRESS,
      env: { ...process.env, NODE_V8_COVERAGE: coverageDir },
      encoding: 'utf8',
      timeout: 60_000,
      maxBuffer: 64 * 1024 * 1024,
    },
  );
}

/** Why the child's run cannot be measured, or undefined when it can. */
function unmeasurable(child, result) {
  if (child.error) return `the child process failed: ${child.error.message}`;
  if (!result) {
    // Node ends an uncaught error's output with its version; the error line says more.
    const lines = child.stderr.trim().split('\n');
    const error = lines.find((line) => /Error\b/.test(line)) ?? lines.pop();
    return `the child process printed no result: ${error}`;
  }
  if (result.warmUpStatus !== 200 || result.status !== 200) {
    return `the webhooks were answered ${result.warmUpStatus} and ${result.status}, not 200`;
  }
  if (result.delivered.join() !== 'user_warm_up,user_measured') {
    return `the handler received ${JSON.stringify(result.delivered)}`;
  }
  if (result.request.length !== 1 || result.settle.length !== 1) {
    return 'v8.takeCoverage() did not write one report per call';
  }
  return undefined;
}

/**
 * Functions that ran, and the calls V8 counted of them, per source file of packages/*, from
 * one coverage report. esbuild's `__name` helper, which tsx adds to each compiled file, is not
 * source and is left out. A module's own top-level code counts only when the module was
 * evaluated during the report's window, which is listed apart.
 */
function functionsRan(reportPath) {
  const files = [];
  const evaluated = [];
  for (const script of JSON.parse(readFileSync(reportPath, 'utf8')).result) {
    const path = script.url.startsWith(PACKAGES_URL) && script.url.slice(PACKAGES_URL.length);
    if (!path || !/^[^/]+\/src\//.test(path)) continue;
    const ran = script.functions.filter(
      (fn) => fn.ranges[0].count > 0 && fn.functionName !== '__name',
    );
    const isTopLevel = (fn) => fn.ranges[0].startOffset === 0 && fn.functionName === '';
    if (ran.some(isTopLevel)) evaluated.push(`packages/${path}`);
    const own = ran.filter((fn) => !isTopLevel(fn));
    const calls = own.reduce((total, fn) => total + fn.ranges[0].count, 0);
    const names = own.map((fn) => `${fn.functionName || '(anonymous)'} ${fn.ranges[0].count}`);
    if (own.length > 0) {
      files.push({ file: `packages/${path}`, functions: own.length, calls, names });
    }
  }
  files.sort((a, b) => a.file.localeCompare(b.file));
  return { files, evaluated: evaluated.sort() };
}

/** Events grouped by `keyOf` (fields of the row), most first, as `{ ...fields, count }`. */
function countBy(events, keyOf) {
  const rows = new Map();
  for (const event of events) {
    const fields = keyOf(event);
    const key = JSON.stringify(fields);
    const row = rows.get(key) ?? { ...fields, count: 0 };
    row.count += 1;
    rows.set(key, row);
  }
  return [...rows.values()].sort(
    (a, b) => b.count - a.count || JSON.stringify(a).localeCompare(JSON.stringify(b)),
  );
}

/** The probes' events of one window as counts, each with where in src they happened. */
function probeCounts(events, poolUrl, poolCounted) {
  const of = (kind) => events.filter((event) => event.kind === kind);
  const promises = of('promise');
  const inSrc = promises.filter((event) => event.at !== undefined);
  const poolFile = poolUrl && `packages/${poolUrl.slice(PACKAGES_URL.length)}`;
  // A platform timer set or cleared by the pool itself wakes it; its entries are the timers.
  const byPool = (event) => event.frames.includes(poolFile);
  const entries = of('pool-start');
  const platform = of('timer').filter((event) => !byPool(event));
  const cleared = of('timer-cleared').filter((event) => !byPool(event));
  const clock = of('clock');
  const traps = of('proxy-trap');
  const where = ({ at, from }) => ({ at, from: from ?? null });
  return {
    promises: {
      total: promises.length,
      inSrc: inSrc.length,
      byFile: countBy(inSrc, ({ at }) => ({ at })),
    },
    timers: {
      pool: poolFile
        ? { className: TIMER_POOL.className, file: poolFile, counted: poolCounted }
        : null,
      armed: entries.length + platform.length,
      poolEntries: entries.length,
      platform: platform.length,
      poolWakeUps: of('timer').length - platform.length,
      cancelled: of('pool-cancel').length + cleared.length,
      byFile: countBy([...entries, ...platform], (event) => ({
        ...where(event),
        how: event.detail,
      })),
    },
    proxyTraps: {
      total: traps.length,
      byProxy: countBy(traps, (event) => ({ madeIn: event.at, trap: event.detail })),
    },
    clockReads: {
      total: clock.length,
      byFile: countBy(clock, (event) => ({ ...where(event), how: event.detail })),
    },
  };
}

function trace(poolUrl) {
  if (!existsSync(EXPRESS)) return { measured: false, reason: 'packages/express does not exist' };
  const coverageDir = mkdtempSync(join(tmpdir(), 'core-shape-coverage-'));
  try {
    const child = runChild(coverageDir, poolUrl);
    const lastLine = child.stdout?.trim().split('\n').pop();
    const result = lastLine?.startsWith('{') ? JSON.parse(lastLine) : undefined;
    const reason = unmeasurable(child, result);
    if (reason) return { measured: false, reason };
    const request = functionsRan(join(coverageDir, result.request[0]));
    const settle = functionsRan(join(coverageDir, result.settle[0]));
    const settleProbes = probeCounts(result.events.settle, poolUrl, result.poolCounted);
    return {
      measured: true,
      ...request,
      functions: sum(request.files, 'functions'),
      calls: sum(request.files, 'calls'),
      ...probeCounts(result.events.request, poolUrl, result.poolCounted),
      settleMs: SETTLE_MS,
      afterAnswer: {
        ...settle,
        promisesInSrc: settleProbes.promises.inSrc,
        timersArmed: settleProbes.timers.armed,
        clockReads: settleProbes.clockReads.total,
      },
    };
  } finally {
    rmSync(coverageDir, { recursive: true, force: true });
  }
}

// --- Output ---

function printFolders({ rows, total }) {
  console.log('Files and lines per folder of packages/core/src');
  const width = Math.max(...rows.map((row) => row.folder.length), 'folder'.length);
  const line = (name, files, lines) =>
    `  ${name.padEnd(width)}  ${String(files).padStart(5)}  ${String(lines).padStart(6)}`;
  console.log(line('folder', 'files', 'lines'));
  for (const row of rows) console.log(line(row.folder, row.files, row.lines));
  console.log(line('total', total.files, total.lines));
}

function printImports({ edges, folderCycles, fileCycles, unresolved, notCounted }) {
  console.log('\nImports between folders (relative imports and export-from, import type included)');
  for (const { from, to, imports } of edges) console.log(`  ${from} -> ${to}: ${imports} imports`);
  const others = Object.entries(notCounted).map(([specifier, count]) => `${specifier} (${count})`);
  if (others.length > 0) console.log(`  not counted, not relative: ${others.join(', ')}`);
  for (const item of unresolved) console.log(`  unresolved: ${item}`);
  console.log('Cycles among folders (imports of the entry points left out: they are the surface)');
  if (folderCycles.length === 0) console.log('  no cycles');
  for (const cycle of folderCycles) console.log(`  ${cycle.join(', ')}`);
  console.log('Cycles among files');
  if (fileCycles.length === 0) console.log('  no cycles');
  for (const cycle of fileCycles) console.log(`  ${cycle.length} files: ${cycle.join(', ')}`);
}

function printExports({ entries, total, shared }) {
  console.log('\nExported names per entry point (values and types)');
  for (const { entry, file, names } of entries) {
    console.log(`  ${entry} (${file}): ${names.length}`);
    console.log(`    ${names.join(', ')}`);
  }
  console.log(`  total: ${total}`);
  console.log('Names exported by more than one entry');
  if (shared.length === 0) console.log('  none');
  for (const { name, entries: where } of shared) console.log(`  ${name}: ${where.join(', ')}`);
}

function printReturns({ files, total }) {
  console.log(
    '\nReturn points of the webhook decision: return statements per file and top-level function',
  );
  console.log(
    '  (returns of nested functions count toward the top-level one; an arrow expression body is none)',
  );
  for (const { file, missing, returns, functions } of files) {
    console.log(missing ? `  ${file}: not found` : `  ${file}: ${returns}`);
    for (const unit of functions) {
      const nested = unit.nested > 0 ? ` (${unit.nested} in nested functions)` : '';
      console.log(`    ${unit.name}: ${unit.returns}${nested}`);
    }
  }
  console.log(`  total: ${total} in ${files.filter((row) => !row.missing).length} files`);
}

function printRowNames({ counted, type, files, total }) {
  console.log(
    `\nPlaces in the webhook decision that name a row: string literals typed ${type}, per file and function`,
  );
  if (!counted) {
    console.log(`  not counted: no type ${type} in packages/core/src`);
    return;
  }
  for (const { file, places, functions } of files) {
    console.log(`  ${file}: ${places}`);
    for (const unit of functions) console.log(`    ${unit.name}: ${unit.places}`);
  }
  const count = files.reduce((all, row) => all + row.functions.length, 0);
  console.log(`  total: ${total} in ${count} top-level declarations of ${files.length} files`);
}

/** `file` without the packages/ prefix every traced file has, `(none)` when undefined. */
function short(file) {
  return file === undefined || file === null ? '(none)' : file.replace(/^packages\//, '');
}

/** `at` and, when another src file called into it, `at <- from`. */
function site({ at, from }) {
  return from ? `${short(at)} <- ${short(from)}` : short(at);
}

function printProbes(traced) {
  const { promises, timers, proxyTraps, clockReads } = traced;
  console.log(
    `  promises created: ${promises.total} (async_hooks init of type PROMISE), ${promises.inSrc} with a packages/*/src file on the stack; per innermost such file:`,
  );
  for (const { at, count } of promises.byFile) console.log(`    ${short(at)}: ${count}`);
  const pool = timers.pool
    ? `${timers.poolEntries} ${timers.pool.className} entries${timers.pool.counted ? '' : ' (not counted: its class is not exported)'}, `
    : '';
  console.log(
    `  timers armed: ${timers.armed} (${pool}${timers.platform} setTimeout/setInterval), ${timers.cancelled} cancelled` +
      (timers.pool
        ? `; platform timers set or cleared to wake ${timers.pool.className}, not counted: ${timers.poolWakeUps}`
        : ''),
  );
  for (const row of timers.byFile) console.log(`    ${row.how} from ${site(row)}: ${row.count}`);
  console.log(`  Proxy traps: ${proxyTraps.total} (traps of Proxies made in src)`);
  for (const { madeIn, trap, count } of proxyTraps.byProxy) {
    console.log(`    ${trap} of the Proxy made in ${short(madeIn)}: ${count}`);
  }
  console.log(`  clock reads: ${clockReads.total} (Date.now and performance.now called from src)`);
  for (const row of clockReads.byFile) console.log(`    ${row.how} in ${site(row)}: ${row.count}`);
}

function printTrace(traced) {
  console.log('\nWhat one webhook runs (--trace)');
  if (!traced.measured) {
    console.log(`  not measured: ${traced.reason}`);
    return;
  }
  console.log('  one signed verification.completed, answered 200 by Express + verificationWebhook');
  console.log(
    '  over loopback HTTP after a warm-up webhook; V8 coverage from sending it to its answer;',
  );
  console.log(
    '  functions as V8 counts them in tsx output (anonymous ones included) and their calls, per file:',
  );
  for (const { file, functions, calls, names } of traced.files) {
    console.log(`  ${file}: ${functions} functions, ${calls} calls`);
    if (values.names) console.log(`    ${names.join(', ')}`);
  }
  console.log(
    `  ${traced.files.length} files, ${traced.functions} functions, ${traced.calls} calls`,
  );
  const evaluated = traced.evaluated.length > 0 ? traced.evaluated.join(', ') : 'none';
  console.log(`  modules first evaluated during the request: ${evaluated}`);
  printProbes(traced);
  const after = traced.afterAnswer;
  const ran = after.files.map(({ file, functions }) => `${file} (${functions})`);
  const ranText = ran.length > 0 ? ran.join(', ') : 'nothing in packages/*/src';
  console.log(
    `  ran in the ${traced.settleMs} ms after the answer (not counted above): ${ranText}`,
  );
  console.log(
    `    with ${after.promisesInSrc} promises made in src, ${after.timersArmed} timers armed, ${after.clockReads} clock reads`,
  );
}

const files = listFiles(SRC);
const options = compilerOptions();
const shape = {
  folders: foldersOf(files),
  imports: importsBetweenFolders(files, options),
  exports: exportedNames(options),
  returns: returnPoints(files),
  rowNames: rowNames(files, options),
  ...(values.trace ? { trace: trace(timerPoolUrl(files)) } : {}),
};

if (values.json) {
  console.log(JSON.stringify(shape, null, 2));
} else {
  printFolders(shape.folders);
  printImports(shape.imports);
  printExports(shape.exports);
  printReturns(shape.returns);
  printRowNames(shape.rowNames);
  if (shape.trace) printTrace(shape.trace);
}
