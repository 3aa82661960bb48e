#!/usr/bin/env node
// Records the public API of every published entry point from its built .d.ts with API
// Extractor, one report per entry under packages/<name>/api/. `--check` (CI) fails when a
// report differs from the build: an API change must be reviewed and committed with
// `pnpm api:update`. Run after `pnpm build`. A subpath entry (`@faceverify/core/adapter`,
// `/store`, `/testing`) uses types the main entry exports; its report marks them as
// ae-forgotten-export, which here means "exported by @faceverify/core", not missing.
//
// usage: node scripts/api-report.mjs [--check]
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  CompilerState,
  Extractor,
  ExtractorConfig,
  ExtractorLogLevel,
} from '@microsoft/api-extractor';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });

/** Each package and its entries: report name and built declaration file. */
const PACKAGES = [
  {
    dir: 'packages/core',
    entries: [
      { report: 'core', dts: 'dist/index.d.ts' },
      { report: 'core-adapter', dts: 'dist/adapter/index.d.ts' },
      { report: 'core-store', dts: 'dist/store/index.d.ts' },
      { report: 'core-testing', dts: 'dist/testing/index.d.ts' },
      { report: 'core-opentelemetry', dts: 'dist/opentelemetry/index.d.ts' },
    ],
  },
  { dir: 'packages/express', entries: [{ report: 'express', dts: 'dist/index.d.ts' }] },
  { dir: 'packages/koa', entries: [{ report: 'koa', dts: 'dist/index.d.ts' }] },
  { dir: 'packages/hono', entries: [{ report: 'hono', dts: 'dist/index.d.ts' }] },
  { dir: 'packages/fastify', entries: [{ report: 'fastify', dts: 'dist/index.d.ts' }] },
  { dir: 'packages/fetch', entries: [{ report: 'fetch', dts: 'dist/index.d.ts' }] },
  { dir: 'packages/redis', entries: [{ report: 'redis', dts: 'dist/index.d.ts' }] },
  {
    dir: 'packages/postgres',
    entries: [
      { report: 'postgres', dts: 'dist/index.d.ts' },
      { report: 'postgres-pglite', dts: 'dist/pglite.d.ts' },
    ],
  },
  {
    dir: 'packages/sinks',
    entries: [
      { report: 'sinks', dts: 'dist/index.d.ts' },
      { report: 'sinks-redis', dts: 'dist/redis.d.ts' },
      { report: 'sinks-nats', dts: 'dist/nats.d.ts' },
      { report: 'sinks-rabbitmq', dts: 'dist/rabbitmq.d.ts' },
      { report: 'sinks-postgres', dts: 'dist/postgres.d.ts' },
      { report: 'sinks-http', dts: 'dist/http.d.ts' },
    ],
  },
  { dir: 'packages/cloudflare', entries: [{ report: 'cloudflare', dts: 'dist/index.d.ts' }] },
  { dir: 'packages/emulator', entries: [{ report: 'emulator', dts: 'dist/index.d.ts' }] },
  { dir: 'packages/cli', entries: [{ report: 'cli', dts: 'dist/index.d.ts' }] },
  { dir: 'packages/relay', entries: [{ report: 'relay', dts: 'dist/index.d.ts' }] },
];

// Messages that concern how the API is documented, not what it is: TypeDoc checks the docs.
const QUIET = { logLevel: ExtractorLogLevel.None, addToApiReportFile: false };

function configFor(packageDir, entry, tempDir) {
  return ExtractorConfig.prepare({
    configObject: {
      projectFolder: packageDir,
      mainEntryPointFilePath: join(packageDir, entry.dts),
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2022',
            module: 'ESNext',
            moduleResolution: 'Bundler',
            lib: ['ES2022', 'DOM', 'DOM.Iterable'],
            types: ['node'],
            skipLibCheck: true,
            strict: true,
          },
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: `${entry.report}.api.md`,
        reportFolder: join(packageDir, 'api'),
        reportTempFolder: tempDir,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
        extractorMessageReporting: {
          default: { logLevel: ExtractorLogLevel.Warning, addToApiReportFile: true },
          'ae-missing-release-tag': QUIET,
          'ae-undocumented': QUIET,
        },
        tsdocMessageReporting: { default: QUIET },
      },
      newlineKind: 'lf',
    },
    configObjectFullPath: join(packageDir, 'api-extractor.json'),
    packageJsonFullPath: join(packageDir, 'package.json'),
  });
}

const tempDir = join(ROOT, 'node_modules', '.cache', 'api-report', String(process.pid));
let failed = false;
let upToDate = 0;
for (const pkg of PACKAGES) {
  const packageDir = join(ROOT, pkg.dir);
  if (!existsSync(join(packageDir, 'package.json'))) continue;
  mkdirSync(join(packageDir, 'api'), { recursive: true });
  const missing = pkg.entries.filter((entry) => !existsSync(join(packageDir, entry.dts)));
  for (const entry of missing) {
    console.error(`${pkg.dir}/${entry.dts} is missing: run pnpm build first.`);
    failed = true;
  }
  if (missing.length > 0) continue;
  // One TypeScript program for all of a package's entries (core has five), not one each.
  const compilerState = CompilerState.create(configFor(packageDir, pkg.entries[0], tempDir), {
    additionalEntryPoints: pkg.entries.map((entry) => join(packageDir, entry.dts)),
  });
  for (const entry of pkg.entries) {
    const result = Extractor.invoke(configFor(packageDir, entry, tempDir), {
      compilerState,
      localBuild: !values.check,
      showVerboseMessages: false,
      messageCallback: (message) => {
        // The report itself is the output; say only what needs a person.
        if (
          message.category === 'Extractor' &&
          (message.messageId === 'console-api-report-unchanged' ||
            message.messageId === 'console-compiler-version-notice')
        ) {
          message.handled = true;
        }
      },
    });
    const report = `${pkg.dir}/api/${entry.report}.api.md`;
    if (values.check && result.apiReportChanged) {
      console.error(
        `${report} is stale: the public API changed. Review it, then run pnpm api:update.`,
      );
      failed = true;
    } else if (!result.succeeded) {
      console.error(`${report}: API Extractor reported ${result.errorCount} error(s).`);
      failed = true;
    } else if (result.apiReportChanged) {
      console.log(`${report} updated`);
    } else {
      upToDate += 1;
    }
  }
}
if (upToDate > 0) console.log(`${upToDate} API reports match the build`);
rmSync(tempDir, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
