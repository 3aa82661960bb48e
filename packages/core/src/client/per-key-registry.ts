import { sha256Hex128 } from '#hmac';
import { type Clock, systemClock } from '../base/clock/clock.js';
import { SlidingWindowPacer } from './pacer.js';
import { ReadGate } from './read-gate.js';

/** What one API key's calls share in a process: the service's limits are per key. */
interface KeyLimiters {
  /** Paces `POST /v1/verify` under the service's per-key limit. */
  pacer: SlidingWindowPacer;
  /** Orders and bounds `GET /v1/sessions/:token`. */
  readGate: ReadGate;
}

// Kept on `globalThis` under a registered symbol so that the ESM and CommonJS builds, when
// both are loaded, still share one set per key: the limit is the service's, per process.
const REGISTRY = Symbol.for('faceverify.core.keyLimiters.v2');
const encoder = new TextEncoder();

// Session reads of one key in flight at once, whatever asks for them.
const READS_IN_FLIGHT = 8;

// Clients on a clock of their own (a test clock) share limiters with clients on that clock only.
const byClock = new WeakMap<Clock, Map<string, KeyLimiters>>();

function registry(clock: Clock): Map<string, KeyLimiters> {
  if (clock !== systemClock) {
    let limiters = byClock.get(clock);
    if (!limiters) {
      limiters = new Map();
      byClock.set(clock, limiters);
    }
    return limiters;
  }
  const scope = globalThis as { [REGISTRY]?: Map<string, KeyLimiters> };
  scope[REGISTRY] ??= new Map();
  return scope[REGISTRY];
}

// The map is keyed by a digest so that the key itself is never stored outside the client
// that was given it. Synchronous where the runtime hashes synchronously (Node): a client's
// first request then waits on no thread pool.
async function keyDigest(apiKey: string): Promise<string> {
  return sha256Hex128(encoder.encode(apiKey));
}

/** The process-wide limiters of one API key (and clock). */
export async function limitersForKey(apiKey: string, clock: Clock): Promise<KeyLimiters> {
  const digest = await keyDigest(apiKey);
  const limiters = registry(clock);
  let found = limiters.get(digest);
  if (!found) {
    found = {
      pacer: clock === systemClock ? new SlidingWindowPacer() : new SlidingWindowPacer(clock),
      readGate: new ReadGate(clock, READS_IN_FLIGHT),
    };
    limiters.set(digest, found);
  }
  return found;
}
