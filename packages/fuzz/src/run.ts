import { type CaseBuilder, drawCases, type FuzzCase } from './cases.js';
import { buildRequest, signHex } from './http-request.js';
import { type MemorySample, memoryBound, settledMemory } from './memory.js';
import { exchange, type Outcome, outcomeName } from './raw-client.js';
import {
  ADAPTER_LABELS,
  ADAPTERS,
  type AdapterName,
  type AdapterServer,
  startAdapter,
} from './servers.js';

export interface FuzzOptions {
  /** Seed of the case sequence; the same seed sends the same requests. */
  seed: number;
  /** Cases per adapter (a case is one request, two for a replay). */
  requests: number;
  adapters?: readonly AdapterName[];
  /** Requests in flight at once. Default 16. */
  concurrency?: number;
  /** Longest wait for one answer, in ms. Default 15 s. */
  timeoutMs?: number;
  /** Runs only this case index (to replay one failure). */
  only?: number;
  /** Called after every 1,000 cases. */
  onProgress?: (adapter: AdapterName, done: number, total: number) => void;
  /**
   * Makes each adapter's server keep every request object (see `AdapterServerOptions`), to
   * show that the memory bound catches a leak of one object per request.
   */
  injectLeak?: boolean;
}

export interface Violation {
  index: number;
  category: string;
  note: string;
  problem: string;
}

export interface AdapterReport {
  adapter: AdapterName;
  label: string;
  cases: number;
  requests: number;
  /** Count per outcome: `200`, `401`, `node-400`, `closed`, `aborted`, ... */
  statuses: Record<string, number>;
  /** Count per outcome, per category. */
  categories: Record<string, Record<string, number>>;
  /** Valid signed deliveries sent (each must reach the handler exactly once). */
  validSent: number;
  /** Their size on the wire, in bytes (the memory bound grows with it). */
  validBytes: number;
  handlerCalls: number;
  violations: Violation[];
  memory: {
    before: MemorySample;
    after: MemorySample;
    heapGrowthMiB: number;
    rssGrowthMiB: number;
    bound: { heapGrowthMiB: number; rssGrowthMiB: number };
    withinBound: boolean;
  };
  receiverErrors: string[];
  frameworkErrors: string[];
  durationMs: number;
}

export interface FuzzReport {
  seed: number;
  requestsPerAdapter: number;
  adapters: AdapterReport[];
  /** Uncaught exceptions and unhandled rejections seen during the run. */
  processErrors: string[];
  ok: boolean;
}

/** Status codes the Receiver documents, with the error codes each may carry. */
const DOCUMENTED: Record<number, readonly string[]> = {
  200: ['received'],
  202: ['received'],
  400: ['payload_invalid', 'body_unreadable'],
  401: ['signature_missing', 'signature_invalid'],
  405: ['method_not_allowed'],
  413: ['payload_too_large'],
  500: ['handler_failed', 'raw_body_unavailable'],
};

const WARM_UP = 20;
// Cases run before the memory baseline, drawn from another seed and numbered apart from the
// run's own: every path (refusals, framework errors, lazy imports) has been taken once, so
// growth after the baseline is what requests retain, not code warming up.
const WARM_UP_CASES = 60;
const WARM_UP_FIRST_INDEX = 1_000_000_000;

function matches(outcome: Outcome, allowed: readonly string[]): boolean {
  const name = outcomeName(outcome);
  if (allowed.includes(name)) return true;
  return outcome.kind === 'answer' && allowed.includes(`${outcome.status}:${outcome.code}`);
}

/** Whether an answer is one the Receiver documents, with the right code for its status. */
function documented(outcome: Outcome): string | undefined {
  if (outcome.kind !== 'answer') return undefined;
  const codes = DOCUMENTED[outcome.status];
  if (!codes) return `undocumented status ${outcome.status}`;
  if (outcome.code === undefined && outcome.body === '') return undefined; // HEAD: no body
  if (outcome.code === undefined || !codes.includes(outcome.code)) {
    return `status ${outcome.status} with ${outcome.code ?? 'no error code'} (${outcome.body.slice(0, 80)})`;
  }
  if (outcome.status === 405 && outcome.headers.get('allow') !== 'POST') {
    return '405 without Allow: POST';
  }
  return undefined;
}

const accepted = (outcome: Outcome) =>
  outcome.kind === 'answer' &&
  (outcome.status === 200 || outcome.status === 202) &&
  outcome.code === 'received';

/** A plain valid delivery, for the warm-up and the final "still alive" check. */
async function validDelivery(port: number, uid: string, timeoutMs: number): Promise<Outcome> {
  const body = Buffer.from(
    JSON.stringify({
      event: 'verification.completed',
      status: 'verified',
      external_user_id: uid,
      confidence: 0.99,
      livenessPassed: true,
      duplicate: false,
      risk: 'low',
      reason: null,
      frontImageUrl: 'https://files.example.test/front/check.jpg',
    }),
  );
  const request = buildRequest({
    headers: [
      ['Content-Type', 'application/json'],
      ['X-Webhook-Signature', signHex(body)],
    ],
    body,
  });
  return exchange(port, { pieces: [request], end: 'wait' }, timeoutMs);
}

async function runAdapter(
  name: AdapterName,
  builders: readonly CaseBuilder[],
  indexes: readonly number[],
  warmUpBuilders: readonly CaseBuilder[],
  options: Required<Pick<FuzzOptions, 'concurrency' | 'timeoutMs'>> &
    Pick<FuzzOptions, 'onProgress' | 'injectLeak'>,
): Promise<AdapterReport> {
  const started = Date.now();
  const server: AdapterServer = await startAdapter(name, { leak: options.injectLeak ?? false });
  const violations: Violation[] = [];
  const statuses: Record<string, number> = {};
  const categories: Record<string, Record<string, number>> = {};
  const expected = new Set<string>();
  let requests = 0;
  let validSent = 0;
  let validBytes = 0;
  try {
    for (let i = 0; i < WARM_UP; i++) {
      const uid = `warm-up-${i}`;
      expected.add(uid);
      const outcome = await validDelivery(server.port, uid, options.timeoutMs);
      if (!accepted(outcome))
        throw new Error(`${name}: warm-up delivery answered ${outcomeName(outcome)}`);
    }
    let next = 0;
    let done = 0;
    const runCase = async (build: CaseBuilder, index: number) => {
      const fuzz: FuzzCase = build(index);
      const violation = (problem: string) =>
        violations.push({ index, category: fuzz.category, note: fuzz.note, problem });
      let anyAccepted = false;
      for (const step of fuzz.steps) {
        const outcome = await exchange(server.port, step.send, options.timeoutMs);
        requests++;
        const outcomeKey = outcomeName(outcome);
        statuses[outcomeKey] = (statuses[outcomeKey] ?? 0) + 1;
        const perCategory = categories[fuzz.category] ?? {};
        categories[fuzz.category] = perCategory;
        perCategory[outcomeKey] = (perCategory[outcomeKey] ?? 0) + 1;
        if (accepted(outcome)) anyAccepted = true;
        const problem = documented(outcome);
        if (problem) violation(problem);
        if (!matches(outcome, step.allowed)) {
          const detail =
            outcome.kind === 'answer' || outcome.kind === 'foreign'
              ? ` ${outcome.body.slice(0, 120)}`
              : outcome.kind === 'garbage'
                ? ` ${JSON.stringify(outcome.text)}`
                : '';
          violation(`answered ${outcomeKey}${detail}; expected one of ${step.allowed.join(', ')}`);
        }
      }
      if (fuzz.handled === 'yes' || (fuzz.handled === 'if-accepted' && anyAccepted)) {
        expected.add(fuzz.uid);
        if (fuzz.handled === 'yes') validSent++;
        for (const piece of fuzz.steps[0]?.send.pieces ?? []) validBytes += piece.length;
      }
    };
    const inParallel = (count: number, work: () => Promise<void>) =>
      Promise.all(Array.from({ length: Math.min(options.concurrency, count) }, work));
    let warmed = 0;
    await inParallel(warmUpBuilders.length, async () => {
      while (warmed < warmUpBuilders.length) {
        const i = warmed++;
        await runCase(warmUpBuilders[i] as CaseBuilder, WARM_UP_FIRST_INDEX + i);
      }
    });
    await server.settled();
    const before = await settledMemory();
    const baseline = { validSent };

    await inParallel(indexes.length, async () => {
      while (next < indexes.length) {
        const index = indexes[next++] as number;
        await runCase(builders[index] as CaseBuilder, index);
        done++;
        if (done % 1000 === 0) options.onProgress?.(name, done, indexes.length);
      }
    });

    // Still alive and still correct after everything above.
    expected.add('final-check');
    const final = await validDelivery(server.port, 'final-check', options.timeoutMs);
    if (!accepted(final)) {
      violations.push({
        index: -1,
        category: 'final-check',
        note: 'a valid delivery after the run',
        problem: `answered ${outcomeName(final)}`,
      });
    }
    await server.settled();

    const seen = new Map<string, number>();
    for (const uid of server.calls) seen.set(uid, (seen.get(uid) ?? 0) + 1);
    for (const [uid, count] of seen) {
      if (!expected.has(uid)) {
        violations.push({
          index: indexOf(uid),
          category: 'handler',
          note: uid,
          problem: 'an invalid request reached the handler',
        });
      } else if (count > 1) {
        violations.push({
          index: indexOf(uid),
          category: 'handler',
          note: uid,
          problem: `handled ${count} times`,
        });
      }
    }
    for (const uid of expected) {
      if (!seen.has(uid)) {
        violations.push({
          index: indexOf(uid),
          category: 'handler',
          note: uid,
          problem: 'a valid delivery never reached the handler',
        });
      }
    }
    const after = await settledMemory();
    const bound = memoryBound(validSent - baseline.validSent);
    const heapGrowthMiB = Math.round((after.heapUsedMiB - before.heapUsedMiB) * 10) / 10;
    const rssGrowthMiB = Math.round((after.rssMiB - before.rssMiB) * 10) / 10;
    const withinBound = heapGrowthMiB <= bound.heapGrowthMiB && rssGrowthMiB <= bound.rssGrowthMiB;
    if (!withinBound) {
      violations.push({
        index: -1,
        category: 'memory',
        note: `heap +${heapGrowthMiB} MiB, RSS +${rssGrowthMiB} MiB`,
        problem: `over the bound (heap +${bound.heapGrowthMiB} MiB, RSS +${bound.rssGrowthMiB} MiB)`,
      });
    }
    return {
      adapter: name,
      label: ADAPTER_LABELS[name],
      cases: indexes.length,
      requests,
      statuses,
      categories,
      validSent,
      validBytes,
      handlerCalls: server.calls.length - WARM_UP - 1,
      violations,
      memory: { before, after, heapGrowthMiB, rssGrowthMiB, bound, withinBound },
      receiverErrors: server.receiverErrors.slice(0, 20),
      frameworkErrors: server.frameworkErrors.slice(0, 20),
      durationMs: Date.now() - started,
    };
  } finally {
    await server.close();
  }
}

const indexOf = (uid: string) => {
  const match = /^fz-(\d+)$/.exec(uid);
  return match ? Number(match[1]) : -1;
};

/**
 * Fuzzes every adapter in turn with the same sequence of cases, over real sockets on
 * 127.0.0.1, and checks: no crash (a valid delivery still works afterwards), only valid
 * signed deliveries reach the handler (each exactly once), every answer is a documented
 * status with its code (or Node's own refusal of malformed HTTP), memory stays bounded.
 */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const adapters = options.adapters ?? ADAPTERS;
  const count = options.only === undefined ? options.requests : options.only + 1;
  const builders = drawCases(options.seed, count);
  const warmUpBuilders = drawCases(options.seed + 1, WARM_UP_CASES);
  const indexes = options.only === undefined ? builders.map((_, i) => i) : [options.only];
  const processErrors: string[] = [];
  const onError = (error: unknown) => {
    processErrors.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
  };
  process.on('uncaughtException', onError);
  process.on('unhandledRejection', onError);
  const reports: AdapterReport[] = [];
  try {
    for (const name of adapters) {
      reports.push(
        await runAdapter(name, builders, indexes, warmUpBuilders, {
          concurrency: options.concurrency ?? 16,
          timeoutMs: options.timeoutMs ?? 15_000,
          ...(options.onProgress ? { onProgress: options.onProgress } : {}),
          ...(options.injectLeak ? { injectLeak: true } : {}),
        }),
      );
    }
  } finally {
    process.off('uncaughtException', onError);
    process.off('unhandledRejection', onError);
  }
  return {
    seed: options.seed,
    requestsPerAdapter: indexes.length,
    adapters: reports,
    processErrors,
    ok: processErrors.length === 0 && reports.every((r) => r.violations.length === 0),
  };
}

/** The case behind an index, for a report: what it sent. */
export function describeCase(seed: number, index: number): FuzzCase {
  const builders = drawCases(seed, index + 1);
  return (builders[index] as CaseBuilder)(index);
}
