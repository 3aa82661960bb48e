import type { Server } from 'node:http';

/** Starts `server` on a free port of 127.0.0.1 and returns its base URL. */
export function listenOnLoopback(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (typeof address !== 'object' || address === null) {
        reject(new Error('the server has no port'));
        return;
      }
      resolve(`http://127.0.0.1:${address.port}`);
    });
  });
}

/** Closes `server` and every connection it still holds, including unanswered requests. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** A URL of 127.0.0.1 on which nothing listens: connections to it are refused. */
export async function refusingUrl(): Promise<string> {
  const { createServer } = await import('node:http');
  const server = createServer();
  const url = await listenOnLoopback(server);
  await closeServer(server);
  return url;
}
