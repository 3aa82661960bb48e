// A loopback load balancer in front of several receiver instances, as the service's one
// callback URL reaches a deployment of several (bench/latency.bench.mjs): requests go to the
// instances in turn, and each answer's time is noted from the request's arrival to the end of
// the instance's answer, which is the time the sender waits. In front of one target (the
// emulator), it times what the instances ask of the service.
import { createServer, request } from 'node:http';

/**
 * @typedef {{ startedAt: number, ms: number, status: number, instance: number }} TimedAnswer
 *   `startedAt` is the request's arrival on `performance.now()`
 * @typedef {{ url: string, answers: TimedAnswer[], close(): Promise<void> }} TimingBalancer
 */

/**
 * Starts the balancer on 127.0.0.1 in front of `targets` (base URLs). An instance that cannot
 * be reached is answered 502, as a real balancer would, and noted as such.
 *
 * @param {string[]} targets
 * @returns {Promise<TimingBalancer>}
 */
export async function startTimingBalancer(targets) {
  /** @type {TimedAnswer[]} */
  const answers = [];
  let next = 0;
  const server = createServer((incoming, outgoing) => {
    const started = performance.now();
    const instance = next++ % targets.length;
    const noted = (status) =>
      answers.push({ startedAt: started, ms: performance.now() - started, status, instance });
    const target = new URL(incoming.url ?? '/', targets[instance]);
    const forwarded = request(
      target,
      // The target's own name: the emulator answers only to names it knows.
      { method: incoming.method, headers: { ...incoming.headers, host: target.host } },
      (answer) => {
        const status = answer.statusCode ?? 502;
        outgoing.writeHead(status, answer.headers);
        answer.pipe(outgoing);
        answer.on('end', () => noted(status));
      },
    );
    forwarded.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
      noted(502);
    });
    incoming.pipe(forwarded);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('the balancer got no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    answers,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve(undefined));
      }),
  };
}
