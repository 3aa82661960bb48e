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
 * The documented bound: after a run and a full GC, the V8 heap may exceed its size at the
 * baseline (taken after warm-up cases have taken every path once) by at most 1 MiB, plus
 * 2 KiB per valid delivery accepted after it (the Receiver remembers each accepted delivery,
 * and keeps its result, for the replay window: 24 h by default; measured at about 1 KiB).
 * Tight enough that a server keeping one request object per request fails it (shown by the
 * fuzz test's injected leak). RSS may grow by at most 256 MiB: it also holds the buffers of
 * the largest requests, which the allocator keeps for reuse, so the heap is what finds leaks.
 */
export function memoryBound(validDeliveries: number): {
  heapGrowthMiB: number;
  rssGrowthMiB: number;
} {
  return { heapGrowthMiB: round(1 + (validDeliveries * 2) / 1024), rssGrowthMiB: 256 };
}
