import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createReceiver, MemoryStore } from '../../src/index.js';

// The service's side: counts what reaches it and starts a session for each request.
let server: Server;
let baseUrl: string;
const received: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      received.push(body);
      const token = `tok_${received.length}`;
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          token,
          verify_url: `https://verify.example.test/s/${token}`,
          status: 'pending',
          external_user_id: JSON.parse(body).external_user_id,
          expires_at: new Date(Date.now() + 600_000).toISOString(),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

// Issue 18, item 3: an id no store can hold bit for bit is refused before the service is asked.
it('refuses an externalUserId no store can hold (lone surrogate, NUL, too long) before anything is sent, and sends the longest one accepted', async () => {
  const store = new MemoryStore();
  const receiver = createReceiver({
    secret: 'whsec_unstorable',
    client: { apiKey: 'fv_test_unstorable', baseUrl },
    store,
  });
  const refused: [string, RegExp][] = [
    ['eve\ud800', /lone UTF-16 surrogate/],
    ['eve\udc00', /lone UTF-16 surrogate/],
    ['eve\u0000', /NUL character/],
    ['u'.repeat(257), /257 characters long; at most 256/],
  ];
  for (const [externalUserId, message] of refused) {
    await expect(receiver.startVerification({ externalUserId })).rejects.toThrow(message);
    await expect(receiver.track('tok_elsewhere', externalUserId)).rejects.toThrow(TypeError);
  }
  expect(received).toEqual([]);
  expect((await store.counts({ now: Date.now() })).pending).toBe(0);

  // Well-formed astral characters are accepted, up to 256 UTF-16 code units, bit for bit.
  const longest = `${'\u{1f600}'.repeat(64)}${'x'.repeat(128)}`;
  expect(longest).toHaveLength(256);
  const started = await receiver.startVerification({ externalUserId: longest });
  expect(received).toHaveLength(1);
  expect(JSON.parse(received[0]!).external_user_id).toBe(longest);
  // The store holds the session under a keyed hash of its token, never the token, and for a
  // keyed hash of the user's id, never the id.
  expect(await store.findByUser({ externalUserId: longest, now: Date.now(), limit: 5 })).toEqual(
    [],
  );
  expect((await store.counts({ now: Date.now() })).pending).toBe(1);
  const [tracked] = await store.leaseDue({
    owner: 'test',
    now: Date.now() + 3_600_000,
    leaseMs: 1,
    limit: 5,
  });
  expect(tracked!.key).not.toContain(started.token);
  expect(tracked!.externalUserId).toMatch(/^u1:/);
});
