import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createReceiver, MemoryStore, type VerificationCompletedEvent } from '../../src/index.js';
import { createTestClock, fixturePayload } from '../../src/testing/index.js';

// The service answers a poll only when the test says so: slower than the receivers' lease.
let server: Server;
let baseUrl: string;
const held: { token: string; res: ServerResponse }[] = [];
let requestArrived: () => void = () => undefined;

function answer({ token, res }: { token: string; res: ServerResponse }) {
  const { event: _event, ...result } = fixturePayload({ external_user_id: 'slow_user' });
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ token, status: 'verified', external_user_id: 'slow_user', result }));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    held.push({ token: decodeURIComponent(req.url?.split('/').at(-1) ?? ''), res });
    requestArrived();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

it('a poll slower than the lease keeps its lease: two workers deliver once', async () => {
  const clock = createTestClock();
  const store = new MemoryStore();
  const events: VerificationCompletedEvent[] = [];
  const workers = [1, 2].map(() =>
    createReceiver({
      secret: 'whsec_lease',
      client: { apiKey: 'fv_test_lease', baseUrl },
      store,
      clock,
      leaseMs: 150,
      pollScheduleMs: [0],
    }).on('verification.completed', (event) => {
      events.push(event);
    }),
  );
  await workers[0]!.track('tok_slow', 'slow_user');
  const polled = new Promise<void>((resolve) => {
    requestArrived = resolve;
  });
  const first = workers[0]!.sweep();
  await polled;
  // Well past the first worker's original lease, while its poll still waits for the service.
  await clock.advance(400);
  const second = await workers[1]!.sweep();
  expect(second.leased).toBe(0);
  answer(held.shift()!);
  const firstReport = await first;
  expect(firstReport.delivered).toBe(1);
  expect(events).toHaveLength(1);
  expect(events[0]?.source).toBe('poll');
});
