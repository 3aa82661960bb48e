// The internal endpoint of the HTTP forward sink in sinks.bench.mjs, in a process of its own so
// that its work is not counted as the sink's CPU: it reads each POST whole, counts it and
// answers 204, without checking the signature (checking is the endpoint's cost, not the
// sink's). Asked over IPC: `count` (the POSTs so far), `stop`.
import { createServer } from 'node:http';

let received = 0;
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    received += 1;
    response.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  process.send?.({ type: 'ready', url: `http://127.0.0.1:${port}/results` });
});
process.on('message', (/** @type {{ type: string }} */ message) => {
  if (message.type === 'count') process.send?.({ type: 'count', received });
  if (message.type === 'stop') {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  }
});
