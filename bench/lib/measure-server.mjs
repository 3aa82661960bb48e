// One measurement of a bench server under load: a fresh server in a child process, a warm-up,
// then a timed run with autocannon; its requests per second, latency and server CPU per
// request. Shared by http.bench.mjs and revisions.bench.mjs.
import autocannon from 'autocannon';
import { startServer } from './child-server.mjs';
import { requestSource } from './webhook-bodies.mjs';

/**
 * @param {string} url
 * @param {ReturnType<typeof import('./webhook-bodies.mjs').requestSource>} source
 * @param {{ connections: number, duration?: number, amount?: number }} settings
 */
export function load(url, source, { connections, duration, amount }) {
  return autocannon({
    url,
    connections,
    pipelining: 1,
    timeout: 10,
    ...(amount ? { amount } : { duration }),
    requests: source.requests,
  });
}

/** How a server of `framework` is started: Bun's row runs under the Bun executable. */
export const runtimeOf = (framework, settings) =>
  framework === 'bun' ? { execPath: settings.bun } : {};

/**
 * One measurement: a fresh server, a warm-up, then `durationS` of load. `signing` other than
 * `valid` floods the server with requests it must reject (401), none reaching a handler.
 * `serverPath` is another checkout's http-server.mjs, which runs that checkout's library with its
 * own frameworks (revisions.bench.mjs).
 */
export async function measure(framework, variant, settings, signing = 'valid', serverPath) {
  const server = await startServer(framework, variant, {
    ...(serverPath ? { server: serverPath } : {}),
    ...runtimeOf(framework, settings),
  });
  try {
    // Same tag, same sequence: the baseline and the candidate see identical bodies.
    const source = requestSource({ tag: 'h', signing });
    await load(server.url, source, {
      connections: settings.connections,
      duration: settings.warmupS,
    });
    const before = await server.stats();
    const result = await load(server.url, source, {
      connections: settings.connections,
      duration: settings.durationS,
    });
    const after = await server.stats();
    const handled = after.handled - before.handled;
    const seconds = result.duration || settings.durationS;
    if (result.errors > 0 || result.timeouts > 0) {
      throw new Error(
        `${framework}/${variant}: ${result.errors} errors, ${result.timeouts} timeouts`,
      );
    }
    const refusals = signing !== 'valid';
    const answered = refusals ? result['4xx'] : result['2xx'];
    if (refusals) {
      // Every request refused, none handled: a rejection row measures rejections only.
      if (result['2xx'] > 0 || result['5xx'] > 0) {
        throw new Error(`${framework}/${variant}: ${result['2xx']} 2xx, ${result['5xx']} 5xx`);
      }
      if (handled !== 0) throw new Error(`${framework}/${variant}: ${handled} were handled`);
    } else {
      if (result.non2xx > 0) {
        throw new Error(
          `${framework}/${variant}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`,
        );
      }
      // Each accepted request must have reached the handler: nothing was a cheap duplicate.
      // Up to one request per connection may be in flight at each end of the measurement
      // (handled but answered outside it, or the other way round), hence twice the connections.
      if (Math.abs(handled - answered) > 2 * settings.connections) {
        throw new Error(
          `${framework}/${variant}: ${answered} answered 2xx but ${handled} were handled`,
        );
      }
    }
    const cpuMicros = after.cpuMicros - before.cpuMicros;
    return {
      requestsPerSec: answered / seconds,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      requests: answered,
      handled,
      // Per refusal; per accepted webhook, per one that reached the handler.
      serverCpuMicrosPerRequest: cpuMicros / Math.max(1, refusals ? answered : handled),
      // Share of one core the server used: well below 1, the load generator set the pace.
      serverCpuLoad: cpuMicros / (seconds * 1e6),
    };
  } finally {
    await server.stop();
  }
}
