import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const DRIVER = fileURLToPath(new URL('./miniflare-driver.mjs', import.meta.url));
const READY_TIMEOUT_MS = 60_000;

/** Node 22 and the Miniflare install that runs under it. */
export interface MiniflareRuntime {
  node: string;
  miniflareDir: string;
}

/** The part of scripts/ensure-miniflare.mjs used here. */
interface EnsureMiniflare {
  ensureMiniflare(): Promise<MiniflareRuntime>;
}

/**
 * Node 22 and Miniflare 4 from the npm registry, installed once into
 * `node_modules/.cache/faceverify-runtimes` and reused (`pnpm test` installs them before
 * Vitest starts): Miniflare 4 does not run on Node 20.
 */
export async function provisionMiniflare(): Promise<MiniflareRuntime> {
  const script = pathToFileURL(join(ROOT, 'scripts', 'ensure-miniflare.mjs')).href;
  const { node, miniflareDir } = await (
    (await import(script)) as EnsureMiniflare
  ).ensureMiniflare();
  return { node, miniflareDir };
}

/**
 * Bundles a module as wrangler would for workerd, with the workspace packages from source.
 * Neutral platform: a node: import (or a Node built-in) cannot resolve, so the build fails on one.
 */
export async function bundleForWorkerd(entry: string, outfile: string): Promise<string> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    target: 'es2022',
    platform: 'neutral',
    conditions: ['@faceverify/source', 'workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    logLevel: 'silent',
  });
  return outfile;
}

/** One Worker of a Miniflare instance. */
export interface WorkerConfig {
  name: string;
  /** A bundle from `bundleForWorkerd`. */
  scriptPath: string;
  bindings?: Record<string, string>;
  /** Binding name to database id: Workers given the same id share one database. */
  d1Databases?: Record<string, string>;
}

/** Migrations the driver applies before the Workers take requests. */
export interface MigrationsConfig {
  /** A bundle exporting `applyMigrations(db, list)`. */
  module: string;
  binding: string;
  worker: string;
  list: readonly { name: string; sql: string }[];
}

export interface MiniflareConfig {
  compatibilityDate: string;
  /** A folder keeping D1 databases across instances; absent: in memory, gone on stop. */
  d1Persist?: string;
  workers: WorkerConfig[];
  migrations?: MigrationsConfig;
}

/** Workers running in workerd, each on its own port of 127.0.0.1. */
export interface RunningMiniflare {
  /** Each Worker's origin, by name. */
  urls: Record<string, string>;
  /** Runs a Worker's scheduled() handler once; resolves with its outcome when it is over. */
  scheduled(worker: string, cron?: string): Promise<{ outcome: string }>;
  /** What the driver and the Workers printed. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts Workers in workerd through Miniflare and resolves once they answer. */
export function startMiniflare(
  runtime: MiniflareRuntime,
  config: MiniflareConfig,
): Promise<RunningMiniflare> {
  const child: ChildProcess = spawn(runtime.node, [DRIVER, runtime.miniflareDir], {
    env: { ...process.env, MINIFLARE_CONFIG: JSON.stringify(config) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    child.stdin?.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`Miniflare did not start within ${READY_TIMEOUT_MS} ms:\n${output}`));
    }, READY_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const ready = output.match(/^READY (\{.*\})$/m)?.[1];
      if (!ready) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.stdout?.on('data', (more: Buffer) => {
        output += more.toString('utf8');
      });
      child.stderr?.on('data', (more: Buffer) => {
        output += more.toString('utf8');
      });
      const { workers, control } = JSON.parse(ready) as {
        workers: Record<string, string>;
        control: string;
      };
      resolve({
        urls: workers,
        output: () => output,
        stop,
        async scheduled(worker, cron = '* * * * *') {
          const response = await fetch(`${control}/scheduled`, {
            method: 'POST',
            body: JSON.stringify({ worker, cron }),
          });
          const body = (await response.json()) as { outcome: string; error?: string };
          if (!response.ok) throw new Error(`scheduled() on ${worker} failed: ${body.error}`);
          return body;
        },
      });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Miniflare exited with code ${code} before it was ready:\n${output}`));
    });
  });
}
