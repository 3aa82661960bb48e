import { createConnection, createServer, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 standing where clients expect a server: a virtual IP, a DNS name
 * or a load balancer in front of whichever node is the primary. Tests move it to another
 * server (a failover) or hold back what flows through it (a replica falling behind).
 */
export interface TcpProxy {
  readonly port: number;
  /** Sends new connections to `port` from now on, and cuts the open ones. */
  retarget(port: number): void;
  /**
   * Stops passing data from the server to its clients: what the server sends meanwhile waits
   * in the proxy, and is dropped by `cut()`. Nothing reaches the clients until `resume()`.
   */
  hold(): void;
  resume(): void;
  /** Destroys every open connection (both sides): data held back is lost. */
  cut(): void;
  /** Bytes the server sent that are held back and not yet passed on. */
  held(): number;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  let target = targetPort;
  let holding = false;
  const pairs = new Set<{ client: Socket; server: Socket; held: Buffer[] }>();
  const listener = createServer((client) => {
    const server = createConnection({ host: '127.0.0.1', port: target });
    const pair = { client, server, held: [] as Buffer[] };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      server.destroy();
    };
    client.on('error', end).on('close', end);
    server.on('error', end).on('close', end);
    client.on('data', (chunk: Buffer) => server.write(chunk));
    server.on('data', (chunk: Buffer) => {
      if (holding) pair.held.push(chunk);
      else client.write(chunk);
    });
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(0, '127.0.0.1', () => resolve());
  });
  const address = listener.address();
  if (!address || typeof address !== 'object') throw new Error('the proxy got no port');
  const cut = () => {
    for (const pair of [...pairs]) {
      pairs.delete(pair);
      pair.held.length = 0;
      pair.client.destroy();
      pair.server.destroy();
    }
  };
  return {
    port: address.port,
    retarget(port) {
      target = port;
      cut();
    },
    hold() {
      holding = true;
    },
    resume() {
      holding = false;
      for (const pair of pairs) {
        for (const chunk of pair.held.splice(0)) pair.client.write(chunk);
      }
    },
    cut,
    held: () =>
      [...pairs].reduce((sum, pair) => sum + pair.held.reduce((n, c) => n + c.length, 0), 0),
    close() {
      cut();
      return new Promise((resolve) => listener.close(() => resolve()));
    },
  };
}
