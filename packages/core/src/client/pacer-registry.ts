import { type Clock, systemClock } from '../clock/clock.js';
import { SlidingWindowPacer } from './pacer.js';

// Kept on `globalThis` under a registered symbol so that the ESM and CommonJS builds, when
// both are loaded, still share one pacer per key: the limit is the service's, per process.
const REGISTRY = Symbol.for('faceverify.core.createSessionPacers.v1');
const encoder = new TextEncoder();

// Clients on a clock of their own (a test clock) share pacers with clients on that clock only.
const byClock = new WeakMap<Clock, Map<string, SlidingWindowPacer>>();

function registry(clock: Clock): Map<string, SlidingWindowPacer> {
  if (clock !== systemClock) {
    let pacers = byClock.get(clock);
    if (!pacers) {
      pacers = new Map();
      byClock.set(clock, pacers);
    }
    return pacers;
  }
  const scope = globalThis as { [REGISTRY]?: Map<string, SlidingWindowPacer> };
  scope[REGISTRY] ??= new Map();
  return scope[REGISTRY];
}

// The map is keyed by a digest so that the key itself is never stored outside the client
// that was given it.
async function keyDigest(apiKey: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(apiKey)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The process-wide pacer of `POST /v1/verify` for one API key (and clock). */
export async function pacerForKey(apiKey: string, clock: Clock): Promise<SlidingWindowPacer> {
  const digest = await keyDigest(apiKey);
  const pacers = registry(clock);
  let pacer = pacers.get(digest);
  if (!pacer) {
    pacer = clock === systemClock ? new SlidingWindowPacer() : new SlidingWindowPacer(clock);
    pacers.set(digest, pacer);
  }
  return pacer;
}
