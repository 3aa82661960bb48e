import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  bundleForWorkerd,
  provisionMiniflare,
  type RunningMiniflare,
  startMiniflare,
} from '@faceverify/test-support';

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
