import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixturePayload, tamperedDelivery } from '@faceverify/core/testing';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import { eventStreamReader } from '@faceverify/test-support';
import {
  bundleForWorkerd,
  type MiniflareConfig,
  type MiniflareRuntime,
  provisionMiniflare,
  type RunningMiniflare,
  startMiniflare,
} from '@faceverify/test-support/miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserVerification } from '../src/user-verifications.js';

const EXAMPLE_DIR = fileURLToPath(new URL('..', import.meta.url));
const MIGRATIONS_DIR = join(EXAMPLE_DIR, 'migrations');
const PACKAGE_MIGRATIONS_DIR = fileURLToPath(
  new URL('../../../packages/cloudflare/migrations', import.meta.url),
);
const APPLY_MIGRATIONS = fileURLToPath(
  new URL('../../../packages/cloudflare/src/apply-migrations.ts', import.meta.url),
);

function compatibilityDate(): string {
  const toml = readFileSync(join(EXAMPLE_DIR, 'wrangler.toml'), 'utf8');
  const date = toml.match(/^compatibility_date\s*=\s*"(\d{4}-\d{2}-\d{2})"/m)?.[1];
  if (!date) throw new Error('wrangler.toml has no compatibility_date');
  return date;
}

/** The migrations as `wrangler d1 migrations apply` reads them: the folder's files, in order. */
function migrations(): { name: string; sql: string }[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((name) => name.endsWith('.sql'))
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(MIGRATIONS_DIR, name), 'utf8') }));
}

let emulator: Emulator;
let runtime: MiniflareRuntime;
let config: MiniflareConfig;
let workers: RunningMiniflare;
let dir: string;

/** Two Workers (two isolates, separate memory) bound to one persisted D1 database. */
async function startWorkers(): Promise<RunningMiniflare> {
  const running = await startMiniflare(runtime, config);
  emulator.setCallbackUrl(`${running.urls.alpha}/webhooks/verification`);
  return running;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'faceverify-worker-'));
  const [provisioned, bundle, migrationsModule] = await Promise.all([
    provisionMiniflare(),
    bundleForWorkerd(join(EXAMPLE_DIR, 'src', 'worker.ts'), join(dir, 'worker.mjs')),
    bundleForWorkerd(APPLY_MIGRATIONS, join(dir, 'apply-migrations.mjs')),
  ]);
  runtime = provisioned;
  expect(readFileSync(bundle, 'utf8')).not.toMatch(/["']node:[a-z_/]+["']/);
  emulator = await startEmulator({ seed: 'example-hono-cloudflare' });
  const bindings = {
    FACEVERIFY_WEBHOOK_SECRET: emulator.signingSecret,
    FACEVERIFY_API_KEY: emulator.apiKey,
    FACEVERIFY_BASE_URL: emulator.url,
    // Due at the first sweep, so one cron event is enough to recover a lost webhook.
    FACEVERIFY_POLL_SCHEDULE_MS: '0',
  };
  const d1Databases = { DB: 'faceverify-example' };
  config = {
    compatibilityDate: compatibilityDate(),
    d1Persist: join(dir, 'd1'),
    workers: [
      { name: 'alpha', scriptPath: bundle, bindings, d1Databases },
      { name: 'beta', scriptPath: bundle, bindings, d1Databases },
    ],
    migrations: { module: migrationsModule, binding: 'DB', worker: 'alpha', list: migrations() },
  };
  workers = await startWorkers();
});

afterAll(async () => {
  await workers?.stop();
  await emulator?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function startVerification(userId: string) {
  const response = await fetch(`${workers.urls.alpha}/verifications`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userId }),
  });
  expect(response.status).toBe(201);
  const { verifyUrl } = (await response.json()) as { verifyUrl: string };
  return { verifyUrl, token: new URL(verifyUrl).pathname.split('/').at(-1) ?? '' };
}

async function recorded(userId: string, worker = 'alpha'): Promise<UserVerification | undefined> {
  const response = await fetch(`${workers.urls[worker]}/verifications/${userId}`);
  return response.status === 200 ? ((await response.json()) as UserVerification) : undefined;
}

/** What the sweeps logged since `from` in the output, summed. */
function sweptSince(from: number): { sweeps: number; leased: number; delivered: number } {
  const lines = [
    ...workers
      .output()
      .slice(from)
      .matchAll(/sweep \([^)]*\): (\{.*\})/g),
  ];
  const reports = lines.map(
    (line) => JSON.parse(line[1]!) as { leased: number; delivered: number },
  );
  return {
    sweeps: reports.length,
    leased: reports.reduce((sum, report) => sum + report.leased, 0),
    delivered: reports.reduce((sum, report) => sum + report.delivered, 0),
  };
}

const PENDING = 'event: state\ndata: {"state":"pending"}';
const COMPLETED = 'event: state\ndata: {"state":"completed","status":"verified"}';

describe('the Worker in workerd with D1', () => {
  // Every file the package ships, not a list pinned here: a package migration missing from
  // the app's folder is a schema the Store's queries run without.
  it('ships every migration of @faceverify/cloudflare unchanged, and applied them all', () => {
    const shipped = readdirSync(PACKAGE_MIGRATIONS_DIR).filter((name) => name.endsWith('.sql'));
    expect(shipped.length).toBeGreaterThan(1);
    for (const name of shipped) {
      expect(readFileSync(join(MIGRATIONS_DIR, name), 'utf8'), name).toBe(
        readFileSync(join(PACKAGE_MIGRATIONS_DIR, name), 'utf8'),
      );
    }
    const applied = migrations().map(({ name }) => name);
    expect(applied).toEqual(expect.arrayContaining([...shipped, '0002_user_verifications.sql']));
    expect(workers.output()).toContain(`MIGRATIONS ${JSON.stringify(applied)}`);
  });

  it('takes the signed webhook and confirms the redirect with the service', async () => {
    const { verifyUrl, token } = await startVerification('alice');
    expect(verifyUrl.startsWith(`${emulator.url}/verify/`)).toBe(true);

    const completion = await emulator.completeSession(token, 'verified');
    await emulator.webhooksSettled();
    expect(emulator.stats().webhooks.delivered).toBe(1);
    expect(await recorded('alice')).toMatchObject({
      status: 'verified',
      source: 'webhook',
      deliveries: 1,
    });
    // The other Worker reads the same database.
    expect(await recorded('alice', 'beta')).toMatchObject({ status: 'verified' });

    expect(completion.redirect_url?.startsWith(`${workers.urls.alpha}/verification/return?`)).toBe(
      true,
    );
    const page = await fetch(completion.redirect_url ?? '');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<h1>Verification verified</h1>');
    expect(html).not.toContain('EventSource');

    const health = await fetch(`${workers.urls.alpha}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', store: { reachable: true } });
  });

  it('shows the service’s status on the redirect, not the one in its address', async () => {
    const { token } = await startVerification('carol');
    const forged = await fetch(
      `${workers.urls.beta}/verification/return?token=${token}&status=verified`,
    );
    expect(await forged.text()).toContain('<h1>Verification pending</h1>');
  });

  it('while pending, the return page listens, and its events end with the result the other Worker recorded', async () => {
    const { token } = await startVerification('dave');
    const page = await fetch(`${workers.urls.beta}/verification/return?token=${token}`);
    const pending = await page.text();
    expect(pending).toContain('<h1>Verification pending</h1>');
    expect(pending).toContain('new EventSource(');

    // The webhook reaches alpha; beta's wait sees the result in D1 (reread every second).
    const events = eventStreamReader(
      await fetch(`${workers.urls.beta}/verification/events/${token}`),
    );
    expect(events.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await events.until(PENDING)).toContain(PENDING);
    await emulator.completeSession(token, 'verified');
    expect(await events.until(COMPLETED)).toContain(COMPLETED);
  });

  it('answers a bogus or unknown return token with a plain 404 page', async () => {
    for (const token of ['bogus', 'vs_0123456789abcdef0123456789abcdef', '<script>']) {
      const page = await fetch(
        `${workers.urls.alpha}/verification/return?token=${encodeURIComponent(token)}`,
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
    const response = await fetch(`${workers.urls.alpha}/webhooks/verification`, {
      method: 'POST',
      headers: delivery.headers,
      body: new Uint8Array(delivery.body),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'signature_invalid' });
    expect(await recorded('mallory')).toBeUndefined();
  });

  it('delivers a lost webhook once, by the cron sweep of either Worker, after a restart', async () => {
    emulator.setFaults({ dropWebhooks: { next: 1 } });
    const { token } = await startVerification('bob');
    await emulator.completeSession(token, 'duplicate');
    await emulator.webhooksSettled();
    expect(emulator.stats().webhooks.dropped).toBe(1);
    expect(await recorded('bob')).toBeUndefined();

    // Nothing of the session is left in any isolate's memory: only D1 (persisted on disk) knows it.
    await workers.stop();
    workers = await startWorkers();
    expect(workers.output()).toContain('MIGRATIONS []');

    // Both Workers' cron events at once: each leases what is due, so one of them delivers.
    const from = workers.output().length;
    const outcomes = await Promise.all([workers.scheduled('alpha'), workers.scheduled('beta')]);
    expect(outcomes.map((outcome) => outcome.outcome)).toEqual(['ok', 'ok']);
    expect(await recorded('bob', 'beta')).toMatchObject({
      status: 'failed',
      source: 'poll',
      deliveries: 1,
    });
    expect(sweptSince(from)).toMatchObject({ sweeps: 2, delivered: 1 });

    // Later sweeps find nothing more to deliver for it.
    await Promise.all([workers.scheduled('alpha'), workers.scheduled('beta')]);
    expect((await recorded('bob', 'alpha'))?.deliveries).toBe(1);
    expect(sweptSince(from)).toMatchObject({ sweeps: 4, delivered: 1 });
  });
});
