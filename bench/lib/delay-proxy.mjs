// A loopback TCP proxy that adds a fixed delay to every round trip between its clients and one
// server, standing where a store's clients expect the store (bench/latency.bench.mjs).
import { createConnection, createServer } from 'node:net';

/**
 * @typedef {{ port: number, turns(): number, close(): Promise<void> }} DelayProxy
 */

/**
 * Starts a proxy on 127.0.0.1 in front of `127.0.0.1:targetPort`. The first chunk a client
 * sends after the server last answered on that connection (a new request/response turn) is
 * held `delayMs` before it is passed on; whatever the client sends in the same turn (the rest
 * of a request, commands pipelined or sent side by side on the connection) is passed on behind
 * it, never earlier and never delayed again. Answers pass at once. A round trip therefore costs
 * `delayMs` more, however many requests share it, as on a network whose round trip is that
 * long; `turns()` counts the turns of every connection so far.
 *
 * With `perChunk`, every chunk a client sends is held a delay of its own, drawn from
 * `delayMs` when that is a function, and never passes the one before it: a network whose
 * latency varies from packet to packet (a store in another region), where a request written
 * in several chunks may wait longer than one delay.
 *
 * @param {{ targetPort: number, delayMs: number | (() => number), perChunk?: boolean }} options
 * @returns {Promise<DelayProxy>}
 */
export async function startDelayProxy({ targetPort, delayMs, perChunk = false }) {
  const delayOf = typeof delayMs === 'function' ? delayMs : () => delayMs;
  const sockets = new Set();
  let turns = 0;
  const listener = createServer((client) => {
    const server = createConnection({ host: '127.0.0.1', port: targetPort });
    client.setNoDelay(true);
    server.setNoDelay(true);
    sockets.add(client);
    sockets.add(server);
    /** Chunks held back, each with the time it may go (never decreasing). */
    const queue = [];
    let timer;
    let turnOpen = false;
    let releaseAt = 0;
    const flush = () => {
      timer = undefined;
      const now = performance.now();
      while (queue.length > 0 && queue[0].at <= now) server.write(queue.shift().chunk);
      if (queue.length > 0) timer = setTimeout(flush, queue[0].at - now);
    };
    client.on('data', (chunk) => {
      const newTurn = !turnOpen;
      if (newTurn) {
        turnOpen = true;
        turns++;
      }
      // Never earlier than the chunk before: the bytes of a connection stay in order.
      if (newTurn || perChunk) releaseAt = Math.max(releaseAt, performance.now() + delayOf());
      queue.push({ chunk, at: releaseAt });
      timer ??= setTimeout(flush, Math.max(0, releaseAt - performance.now()));
    });
    server.on('data', (chunk) => {
      turnOpen = false;
      client.write(chunk);
    });
    const end = () => {
      clearTimeout(timer);
      queue.length = 0;
      sockets.delete(client);
      sockets.delete(server);
      client.destroy();
      server.destroy();
    };
    client.on('error', end).on('close', end);
    server.on('error', end).on('close', end);
  });
  await new Promise((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(0, '127.0.0.1', () => resolve(undefined));
  });
  const address = listener.address();
  if (!address || typeof address !== 'object') throw new Error('the delay proxy got no port');
  return {
    port: address.port,
    turns: () => turns,
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => listener.close(() => resolve(undefined)));
    },
  };
}
