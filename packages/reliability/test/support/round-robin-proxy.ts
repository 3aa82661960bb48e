import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback load balancer: the service has one callback URL, and several receiver
 * instances stand behind it. A target that is down answers 502, as a real balancer would.
 */
export async function startRoundRobinProxy(targets: () => string[]) {
  let next = 0;
  const server: Server = createServer((incoming, outgoing) => {
    const list = targets();
    const target = new URL(incoming.url ?? '/', list[next++ % list.length]);
    const forwarded = request(
      target,
      { method: incoming.method, headers: incoming.headers },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    forwarded.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
    });
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
