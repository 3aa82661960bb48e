import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import {
  bundleForWorkerd,
  provisionMiniflare,
  type RunningMiniflare,
  startMiniflare,
} from '@faceverify/test-support/miniflare';

const ENTRY = fileURLToPath(new URL('./workerd/contract-worker.ts', import.meta.url));
const COMPATIBILITY_DATE = '2025-09-01';

/** The test Worker in workerd with a real local D1 (SQLite) bound as DB, and an empty EMPTY. */
export interface ContractWorker {
  /** Requests a route of the test Worker and reads its JSON answer; fails on an error status. */
  call<T>(path: string, body?: unknown): Promise<T>;
  url: string;
  miniflare: RunningMiniflare;
  close(): Promise<void>;
}

export async function startContractWorker(): Promise<ContractWorker> {
  const dir = mkdtempSync(join(tmpdir(), 'faceverify-d1-'));
  const [runtime, bundle] = await Promise.all([
    provisionMiniflare(),
    bundleForWorkerd(ENTRY, join(dir, 'worker.mjs')),
  ]);
  const miniflare = await startMiniflare(runtime, {
    compatibilityDate: COMPATIBILITY_DATE,
    workers: [
      {
        name: 'contract',
        scriptPath: bundle,
        d1Databases: { DB: 'contract-db', EMPTY: 'empty-db' },
      },
    ],
  });
  const url = miniflare.urls.contract!;
  return {
    miniflare,
    url,
    async call<T>(path: string, body?: unknown) {
      const response = await fetch(
        `${url}${path}`,
        body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) },
      );
      const text = await response.text();
      if (!response.ok) throw new Error(`${path} answered ${response.status}: ${text}`);
      return JSON.parse(text) as T;
    },
    async close() {
      await miniflare.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The test Worker with one real Receiver on D1 (its `/cost/` routes), and the emulator as its
 * service, sending webhooks to it.
 */
export async function startReceiverScenario(
  seed: string,
): Promise<{ worker: ContractWorker; emulator: Emulator }> {
  const [worker, emulator] = await Promise.all([startContractWorker(), startEmulator({ seed })]);
  emulator.setCallbackUrl(`${worker.url}/cost/webhook`);
  await worker.call('/cost/setup', {
    base: emulator.url,
    key: emulator.apiKey,
    secret: emulator.signingSecret,
  });
  return { worker, emulator };
}
