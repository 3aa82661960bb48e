#!/usr/bin/env node
// `pnpm typecheck`: every package, example and script in four tsc programs, two at a time (CI
// machines have two cores), instead of one program per folder, and the TypeScript of the docs
// against the built packages when they are built (scripts/check-doc-snippets.mjs). Each program prints its time;
// errors are printed as tsc wrote them. `pnpm typecheck:each` still checks folder by folder.
// The checker is TypeScript 7 (`typescript-7`, the native compiler: about a fifth of the CPU
// time); the tools that load TypeScript's API (tsdown's declarations, TypeDoc, API Extractor,
// the docs' snippets) use TypeScript 5.9, and TypeDoc (`pnpm docs:api`) reports any error 5.9
// finds in the packages' sources.
import { fileURLToPath } from 'node:url';
import { runAll, runCapturing } from './lib/jobs.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSC = fileURLToPath(new URL('../node_modules/typescript-7/bin/tsc', import.meta.url));
const DOC_SNIPPETS = fileURLToPath(new URL('./check-doc-snippets.mjs', import.meta.url));
const PROGRAMS = [
  'tsconfig.typecheck.json',
  'tsconfig.typecheck-koa.json',
  'examples/nextjs/tsconfig.json',
  'tsconfig.tooling.json',
];
const PARALLEL = 2;

/** @param {string} project */
async function check(project) {
  const started = Date.now();
  const { passed, output } = await runCapturing(
    process.execPath,
    [TSC, '--noEmit', '-p', project],
    ROOT,
  );
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`${passed ? 'ok    ' : 'FAILED'} ${project} (${seconds} s)`);
  if (output.trim()) console.log(output.trimEnd());
  return passed;
}

/** The docs' snippets, with its own summary line. */
async function checkDocs() {
  const { passed, output } = await runCapturing(
    process.execPath,
    [DOC_SNIPPETS, '--if-built'],
    ROOT,
  );
  console.log(output.trimEnd());
  return passed;
}

// CI type-checks beside the build and checks the docs once the build is done (`--without-docs`).
const withDocs = !process.argv.includes('--without-docs');
const passed = await runAll(
  [...PROGRAMS.map((project) => () => check(project)), ...(withDocs ? [checkDocs] : [])],
  PARALLEL,
);
process.exitCode = passed ? 0 : 1;
