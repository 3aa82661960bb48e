import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const MIB = 2 ** 20;

/** A full GC: `globalThis.gc` when Node runs with --expose-gc, else enabled here. */
function collector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

let gc: (() => void) | undefined;

export interface MemorySample {
  rssMiB: number;
  heapUsedMiB: number;
}

/** Memory of this process after a full GC (twice, so finalisers have run). */
export async function settledMemory(): Promise<MemorySample> {
  gc ??= collector();
  gc();
  await new Promise((resolve) => setTimeout(resolve, 50));
  gc();
  const { rss, heapUsed } = process.memoryUsage();
  return { rssMiB: round(rss / MIB), heapUsedMiB: round(heapUsed / MIB) };
}

const round = (value: number) => Math.round(value * 10) / 10;

/**
 * The documented bound: after a run and a GC, the V8 heap may exceed its size at the start by
 * at most 48 MiB, plus 2 KiB per valid delivery, plus three times the bytes of the valid
 * deliveries (the Receiver remembers accepted deliveries, and keeps a session's result,
 * for its replay window: 24 h by default); and RSS by at most 256 MiB (RSS also holds the buffers of
 * the largest requests, which the allocator keeps for reuse).
 */
export function memoryBound(
  validDeliveries: number,
  validBytes: number,
): { heapGrowthMiB: number; rssGrowthMiB: number } {
  const heap = 48 + (validDeliveries * 2) / 1024 + (3 * validBytes) / 2 ** 20;
  return { heapGrowthMiB: round(heap), rssGrowthMiB: 256 };
}
