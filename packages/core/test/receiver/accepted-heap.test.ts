import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

// What a Receiver keeps per accepted webhook, once it is warm, is the replay window's digest
// (tens of bytes, kept for the window by design). Its caches (hashed ids, opened tokens and
// results) hold a bounded number of entries and stay level once full: emptied at once when
// full instead, they made the heap of a busy process swing by tens of MiB (opened results are
// kilobytes each), and a reading of it depended on where in that swing it fell.
// The webhooks run in a fresh process, so nothing else allocates beside them.
const ACCEPT = fileURLToPath(new URL('../fixtures/accepted-heap.mjs', import.meta.url));
const CHECKPOINTS = [2_000, 3_500, 5_000, 6_500, 8_000, 9_500];
// The replay window's digest per webhook, with room to spare; anything a cache kept per
// webhook (a kilobyte or more each) is far above it.
const MOST_BYTES_PER_WEBHOOK = 200;
// Compiled code and the like, the same whatever the number of webhooks.
const SLACK_BYTES = 1.5 * 2 ** 20;

it('keeps the heap level past its caches: at most 200 bytes per accepted webhook between any two checkpoints', async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--expose-gc', ACCEPT, CHECKPOINTS.join(',')],
    { cwd: fileURLToPath(new URL('..', import.meta.url)), maxBuffer: 2 ** 20 },
  );
  const run = JSON.parse(stdout) as { statuses: number[]; heaps: number[] };
  expect(run.statuses).toEqual([200]);
  const growth = run.heaps.map((heap, i) => ({
    webhooks: CHECKPOINTS[i]! - CHECKPOINTS[0]!,
    bytes: heap - run.heaps[0]!,
  }));
  for (const { webhooks, bytes } of growth) {
    expect(Math.abs(bytes), JSON.stringify(growth)).toBeLessThanOrEqual(
      webhooks * MOST_BYTES_PER_WEBHOOK + SLACK_BYTES,
    );
  }
});
