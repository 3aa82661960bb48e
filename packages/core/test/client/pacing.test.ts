import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { createTestClock, type TestClock } from '../../src/testing/index.js';
import { drive } from '../support-clock.js';
import { createdReply, type ScriptedServer, startScriptedServer } from './scripted-server.js';

// Pacing is decided by the client's clock: a test clock makes every wait exact and lets a
// test say "this happened without any time passing" instead of bounding wall time.
const WINDOW_MS = 60_000;
const LIMIT = 5;

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function pacedServer(clock: TestClock) {
  server = await startScriptedServer((request) => {
    const { external_user_id: user } = JSON.parse(request.body) as { external_user_id: string };
    return createdReply(`tok_${user}`);
  }, clock.now);
  return server;
}

/** Asserts that no `WINDOW_MS` long stretch saw more than `LIMIT` requests arrive. */
function expectWithinLimit(requests: ScriptedServer['requests']): void {
  const arrivals = requests.map((request) => request.at).sort((a, b) => a - b);
  for (let i = 0; i + LIMIT < arrivals.length; i++) {
    const span = (arrivals[i + LIMIT] as number) - (arrivals[i] as number);
    expect(span).toBeGreaterThanOrEqual(WINDOW_MS);
  }
}

function users(scripted: ScriptedServer): string[] {
  return scripted.requests.map(
    (request) => (JSON.parse(request.body) as { external_user_id: string }).external_user_id,
  );
}

describe('createSession pacing', () => {
  it('queues a burst in order: none fails and no window sees more than the limit', async () => {
    const clock = createTestClock();
    const scripted = await pacedServer(clock);
    const client = createClient({
      apiKey: 'fv_test_pacing_burst',
      baseUrl: scripted.url,
      createSessionsPerMinute: LIMIT,
      clock,
    });
    const started = clock.now();
    const sessions = await drive(
      clock,
      Promise.all(
        Array.from({ length: 12 }, (_, i) => client.createSession({ externalUserId: `u${i}` })),
      ),
    );

    expect(sessions.map((session) => session.token)).toEqual(
      Array.from({ length: 12 }, (_, i) => `tok_u${i}`),
    );
    expect(scripted.requests).toHaveLength(12);
    expectWithinLimit(scripted.requests);
    // 12 sends at 5 per window need two full windows.
    expect(clock.now() - started).toBeGreaterThanOrEqual(2 * WINDOW_MS);
    // FIFO: each window's sends are the next callers in line, whatever order they arrive in.
    const sent = users(scripted);
    expect(new Set(sent.slice(0, 5))).toEqual(new Set(['u0', 'u1', 'u2', 'u3', 'u4']));
    expect(new Set(sent.slice(5, 10))).toEqual(new Set(['u5', 'u6', 'u7', 'u8', 'u9']));
  });

  it('shares one pace between clients of the same key, and not with other keys', async () => {
    const clock = createTestClock();
    const scripted = await pacedServer(clock);
    const options = { baseUrl: scripted.url, createSessionsPerMinute: LIMIT, clock };
    // Clients on one test clock share nothing by default; the registry shares per key and
    // clock, as the system clock's clients do per process.
    const first = createClient({ ...options, apiKey: 'fv_test_pacing_shared' });
    const second = createClient({ ...options, apiKey: 'fv_test_pacing_shared' });
    const other = createClient({ ...options, apiKey: 'fv_test_pacing_other' });

    const started = clock.now();
    const shared = Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 ? first : second).createSession({ externalUserId: `s${i}` }),
      ),
    );
    // The other key's full window goes through without the clock moving at all: it does
    // not wait behind the shared key's queue.
    await Promise.all(
      Array.from({ length: LIMIT }, (_, i) => other.createSession({ externalUserId: `o${i}` })),
    );
    expect(clock.now()).toBe(started);
    await drive(clock, shared);

    const sharedRequests = scripted.requests.filter((request) =>
      request.headers.authorization?.endsWith('fv_test_pacing_shared'),
    );
    expect(sharedRequests).toHaveLength(8);
    expectWithinLimit(sharedRequests);
    expect(clock.now() - started).toBeGreaterThanOrEqual(WINDOW_MS);
  });

  it('takes an aborted caller out of the queue, at once, and keeps the others going', async () => {
    const clock = createTestClock();
    const scripted = await pacedServer(clock);
    const client = createClient({
      apiKey: 'fv_test_pacing_abort',
      baseUrl: scripted.url,
      createSessionsPerMinute: 1,
      clock,
    });
    const controller = new AbortController();
    const reason = new Error('user left');
    const first = client.createSession({ externalUserId: 'first' });
    const aborted = client
      .createSession({ externalUserId: 'aborted' }, { signal: controller.signal })
      .catch((e) => e);
    const third = client.createSession({ externalUserId: 'third' });

    await first;
    const abortAt = clock.now();
    controller.abort(reason);
    // Rejected with no time passing: the abort does not wait for the caller's turn.
    expect(await aborted).toBe(reason);
    expect(clock.now()).toBe(abortAt);

    expect((await drive(clock, third)).token).toBe('tok_third');
    expect(users(scripted)).toEqual(['first', 'third']);
    const [firstAt, thirdAt] = scripted.requests.map((request) => request.at);
    expect((thirdAt as number) - (firstAt as number)).toBeGreaterThanOrEqual(WINDOW_MS);
  });

  it('holds the whole queue of a key after a 429', async () => {
    const clock = createTestClock();
    const requests: string[] = [];
    server = await startScriptedServer((request, index) => {
      const { external_user_id: user } = JSON.parse(request.body) as { external_user_id: string };
      requests.push(user);
      return index === 0
        ? { status: 429, json: { success: false, message: 'Slow down.', retry_after_ms: 200 } }
        : createdReply(`tok_${user}`);
    }, clock.now);
    let retryScheduled!: () => void;
    const firstRejected = new Promise<void>((resolve) => {
      retryScheduled = resolve;
    });
    const client = createClient({
      apiKey: 'fv_test_pacing_hold',
      baseUrl: server.url,
      // One send at a time makes the order of sends visible in the order of arrivals.
      createSessionsPerMinute: 1,
      paceWindowMs: 100,
      clock,
      logger: {
        debug: (message) => {
          if (message === 'faceverify request retried') retryScheduled();
        },
      },
    });
    const first = client.createSession({ externalUserId: 'a' });
    // The others queue once the first was answered 429 and its retry holds the queue.
    await firstRejected;
    const rest = ['b', 'c'].map((user) => client.createSession({ externalUserId: user }));
    await drive(clock, Promise.all([first, ...rest]), 10);

    // The retry of "a" kept its place ahead of the callers that queued while it waited.
    expect(requests).toEqual(['a', 'a', 'b', 'c']);
    const [rejectedAt, ...later] = server.requests.map((request) => request.at);
    for (const at of later) expect(at - (rejectedAt as number)).toBeGreaterThanOrEqual(200);
  });
});
