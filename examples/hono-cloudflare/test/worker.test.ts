import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fixturePayload, tamperedDelivery } from '@faceverify/core/testing';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bindings } from '../src/bindings.js';

const EXAMPLE_DIR = fileURLToPath(new URL('..', import.meta.url));
const ROOT = join(EXAMPLE_DIR, '..', '..');
// Shared with scripts/test-runtimes.mjs: Node 22 and Miniflare are installed once for both.
const RUNTIMES_CACHE = join(ROOT, 'node_modules', '.cache', 'faceverify-runtimes');
const DRIVER = fileURLToPath(new URL('./support/miniflare-driver.mjs', import.meta.url));
const READY_TIMEOUT_MS = 60_000;

interface Installed {
  bin: string;
  dir: string;
}

/** The parts of scripts/runtimes/provision.mjs used here. */
interface Provision {
  ensureInstalled(options: {
    dir: string;
    spec: string;
    candidates: (dir: string) => string[];
    nodeBinDir?: string;
  }): Promise<Installed>;
  binCandidates(dir: string, name: string): string[];
}

/** Node 22 and Miniflare 4 from the npm registry, cached: Miniflare 4 does not run on Node 20. */
async function provisionMiniflare(): Promise<{ node: string; miniflareDir: string }> {
  const provisionUrl = pathToFileURL(join(ROOT, 'scripts', 'runtimes', 'provision.mjs')).href;
  const provision = (await import(provisionUrl)) as Provision;
  const node = await provision.ensureInstalled({
    dir: join(RUNTIMES_CACHE, 'node22'),
    spec: 'node@22',
    candidates: (dir) => provision.binCandidates(dir, 'node'),
  });
  const miniflare = await provision.ensureInstalled({
    dir: join(RUNTIMES_CACHE, 'miniflare'),
    spec: 'miniflare@4',
    candidates: (dir) => provision.binCandidates(dir, 'workerd'),
    nodeBinDir: dirname(node.bin),
  });
  return { node: node.bin, miniflareDir: miniflare.dir };
}

/** Bundles the Worker as wrangler would for workerd, with the workspace packages from source. */
async function bundleWorker(outDir: string): Promise<string> {
  const outfile = join(outDir, 'worker.mjs');
  await build({
    entryPoints: [join(EXAMPLE_DIR, 'src', 'worker.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    target: 'es2022',
    // Neutral: a node: import (or a Node built-in) cannot resolve, so the build fails on one.
    platform: 'neutral',
    conditions: ['@faceverify/source', 'workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    logLevel: 'silent',
  });
  return outfile;
}

function compatibilityDate(): string {
  const toml = readFileSync(join(EXAMPLE_DIR, 'wrangler.toml'), 'utf8');
  const date = toml.match(/^compatibility_date\s*=\s*"(\d{4}-\d{2}-\d{2})"/m)?.[1];
  if (!date) throw new Error('wrangler.toml has no compatibility_date');
  return date;
}

interface RunningWorker {
  url: string;
  output: () => string;
  stop: () => Promise<void>;
}

/** Starts the Worker in workerd and resolves once it answers on its port. */
function serveWorker(
  node: string,
  miniflareDir: string,
  bundle: string,
  bindings: Bindings,
): Promise<RunningWorker> {
  const child: ChildProcess = spawn(node, [DRIVER, miniflareDir, bundle, compatibilityDate()], {
    env: { ...process.env, MINIFLARE_BINDINGS: JSON.stringify(bindings) },
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
      const ready = output.match(/^READY (http:\/\/\S+)$/m)?.[1];
      if (ready) {
        clearTimeout(timer);
        resolve({ url: ready, output: () => output, stop });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Miniflare exited with code ${code} before it was ready:\n${output}`));
    });
  });
}

let emulator: Emulator;
let worker: RunningWorker;
let bundleDir: string;

beforeAll(async () => {
  bundleDir = mkdtempSync(join(tmpdir(), 'faceverify-worker-'));
  const [runtime, bundle] = await Promise.all([provisionMiniflare(), bundleWorker(bundleDir)]);
  expect(readFileSync(bundle, 'utf8')).not.toMatch(/["']node:[a-z_/]+["']/);
  emulator = await startEmulator({ seed: 'example-hono-cloudflare' });
  worker = await serveWorker(runtime.node, runtime.miniflareDir, bundle, {
    FACEVERIFY_WEBHOOK_SECRET: emulator.signingSecret,
    FACEVERIFY_API_KEY: emulator.apiKey,
    FACEVERIFY_BASE_URL: emulator.url,
    // Due at the first sweep, so one cron event is enough to recover a lost webhook.
    FACEVERIFY_POLL_SCHEDULE_MS: '0',
  });
  emulator.setCallbackUrl(`${worker.url}/webhooks/verification`);
});

afterAll(async () => {
  await worker?.stop();
  await emulator?.close();
  rmSync(bundleDir, { recursive: true, force: true });
});

async function startVerification(userId: string) {
  const response = await fetch(`${worker.url}/verifications`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userId }),
  });
  expect(response.status).toBe(201);
  const { verifyUrl } = (await response.json()) as { verifyUrl: string };
  return { verifyUrl, token: new URL(verifyUrl).pathname.split('/').at(-1) ?? '' };
}

async function recorded(userId: string): Promise<unknown> {
  const response = await fetch(`${worker.url}/verifications/${userId}`);
  return response.status === 200 ? response.json() : undefined;
}

describe('the Worker in workerd', () => {
  it('takes the signed webhook and confirms the redirect with the service', async () => {
    const { verifyUrl, token } = await startVerification('alice');
    expect(verifyUrl.startsWith(`${emulator.url}/verify/`)).toBe(true);

    const completion = await emulator.completeSession(token, 'verified');
    await emulator.webhooksSettled();
    expect(emulator.stats().webhooks.delivered).toBe(1);
    expect(await recorded('alice')).toMatchObject({ status: 'verified', source: 'webhook' });

    expect(completion.redirect_url?.startsWith(`${worker.url}/verification/return?`)).toBe(true);
    const page = await fetch(completion.redirect_url ?? '');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<h1>Verification verified</h1>');
  });

  it('shows the service’s status on the redirect, not the one in its address', async () => {
    const { token } = await startVerification('carol');
    const forged = await fetch(`${worker.url}/verification/return?token=${token}&status=verified`);
    expect(await forged.text()).toContain('<h1>Verification pending</h1>');
  });

  it('answers a bogus or unknown return token with a plain 404 page', async () => {
    for (const token of ['bogus', 'vs_0123456789abcdef0123456789abcdef', '<script>']) {
      const page = await fetch(
        `${worker.url}/verification/return?token=${encodeURIComponent(token)}`,
      );
      expect(page.status, token).toBe(404);
      expect(page.headers.get('content-type'), token).toMatch(/^text\/plain/);
      expect(await page.text(), token).toBe('This verification is not known.');
    }
  });

  it('answers a tampered webhook with 401', async () => {
    const delivery = await tamperedDelivery(fixturePayload({ external_user_id: 'mallory' }), {
      secret: emulator.signingSecret,
    });
    const response = await fetch(`${worker.url}/webhooks/verification`, {
      method: 'POST',
      headers: delivery.headers,
      body: new Uint8Array(delivery.body),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'signature_invalid' });
    expect(await recorded('mallory')).toBeUndefined();
  });

  it('recovers a lost webhook in the cron-triggered sweep', async () => {
    emulator.setFaults({ dropWebhooks: { next: 1 } });
    const { token } = await startVerification('bob');
    await emulator.completeSession(token, 'duplicate');
    await emulator.webhooksSettled();
    expect(emulator.stats().webhooks.dropped).toBe(1);
    expect(await recorded('bob')).toBeUndefined();

    const cron = await fetch(`${worker.url}/cdn-cgi/handler/scheduled?cron=*+*+*+*+*&format=json`);
    expect(await cron.json()).toMatchObject({ outcome: 'ok' });
    expect(cron.status).toBe(200);
    expect(await recorded('bob')).toMatchObject({ status: 'failed', source: 'poll' });
    expect(worker.output()).toMatch(/sweep \(\* \* \* \* \*\): \{"leased":\d+,"delivered":1/);
  });
});
