import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createReceiver, MemoryStore, type VerificationCompletedEvent } from '../src/index.js';
import { fixturePayload } from '../src/testing/index.js';

// The service, slow to answer a poll: slower than the receivers' lease.
const POLL_DELAY_MS = 400;
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const token = decodeURIComponent(req.url?.split('/').at(-1) ?? '');
    const { event: _event, ...result } = fixturePayload({ external_user_id: 'slow_user' });
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ token, status: 'verified', external_user_id: 'slow_user', result }));
    }, POLL_DELAY_MS);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

it('a poll slower than the lease keeps its lease: two workers deliver once', async () => {
  const store = new MemoryStore();
  const events: VerificationCompletedEvent[] = [];
  const workers = [1, 2].map(() =>
    createReceiver({
      secret: 'whsec_lease',
      client: { apiKey: 'fv_test_lease', baseUrl },
      store,
      leaseMs: 150,
      pollScheduleMs: [0],
    }).on('verification.completed', (event) => {
      events.push(event);
    }),
  );
  await workers[0]!.track('tok_slow', 'slow_user');
  const first = workers[0]!.sweep();
  // Past the first worker's original lease, while its poll is still waiting for the service.
  await new Promise((resolve) => setTimeout(resolve, 250));
  const second = await workers[1]!.sweep();
  const firstReport = await first;
  expect(firstReport.delivered).toBe(1);
  expect(second.leased).toBe(0);
  expect(events).toHaveLength(1);
  expect(events[0]?.source).toBe('poll');
});
