import { getEventListeners } from 'node:events';
import { afterEach, expect, it } from 'vitest';
import { createClient, createReceiver, MemoryStore } from '../../src/index.js';
import { fixturePayload, signedDelivery } from '../../src/testing/index.js';
import { RESULT_FIELDS, startScriptedServer } from '../client/scripted-server.js';

// One signal for many operations at once (a server's shutdown signal handed to every return
// page's wait, or to every read) holds one listener of the library, not one per operation:
// Node warns of a leak (MaxListenersExceededWarning) from the eleventh on.
const SECRET = 'whsec_shared_abort_signal_0123456789';
const MANY = 30;

const abortListeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);
process.on('warning', onWarning);
afterEach(async () => {
  // Node emits the warning on the next tick after the listener that crossed the limit.
  await new Promise((resolve) => setImmediate(resolve));
  expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([]);
  warnings.length = 0;
});

it(`${MANY} waitForResult calls on one signal hold one listener; results and the abort leave none`, async () => {
  const receiver = createReceiver({
    secret: SECRET,
    // track() needs a client; nothing here asks the service (webhooks are not confirmed).
    client: { apiKey: 'fv_test_shared_signal', baseUrl: 'http://127.0.0.1:9' },
    confirmWebhooks: false,
    store: new MemoryStore(),
    logger: false,
  }).on('verification.completed', () => undefined);
  const tokens = Array.from({ length: MANY }, (_, index) => `tok_shared_signal_${index}`);
  for (const [index, token] of tokens.entries()) await receiver.track(token, `user_${index}`);

  const controller = new AbortController();
  const waits = tokens.map((token) =>
    receiver.waitForResult(token, { signal: controller.signal, timeoutMs: 60_000 }).then(
      (outcome) => outcome.state,
      (error: unknown) => (error as Error).message,
    ),
  );
  await expect.poll(() => abortListeners(controller.signal)).toBe(1);

  // Half of them get their result: their waits end and stop listening; the signal's one
  // listener stays for the others.
  for (let index = 0; index < MANY / 2; index++) {
    const payload = fixturePayload({ external_user_id: `user_${index}` });
    const answer = await receiver.receive(await signedDelivery(payload, { secret: SECRET }));
    expect(answer.status).toBe(200);
  }
  await expect.poll(() => abortListeners(controller.signal)).toBe(1);
  controller.abort(new Error('shutting down'));
  expect(await Promise.all(waits)).toEqual([
    ...Array(MANY / 2).fill('completed'),
    ...Array(MANY / 2).fill('shutting down'),
  ]);
  expect(abortListeners(controller.signal)).toBe(0);

  // Waits that all end by themselves leave nothing on a signal that never aborts.
  const idle = new AbortController();
  const pending = tokens
    .slice(MANY / 2)
    .map((token) => receiver.waitForResult(token, { signal: idle.signal, timeoutMs: 50 }));
  expect(abortListeners(idle.signal)).toBe(0);
  await expect.poll(() => abortListeners(idle.signal)).toBe(1);
  for (const outcome of await Promise.all(pending)) expect(outcome).toEqual({ state: 'pending' });
  expect(abortListeners(idle.signal)).toBe(0);
});

it(`${MANY} client reads on one signal hold one listener, queued or in flight, and none after`, async () => {
  // Answers wait until the listeners were counted: the reads are then surely in flight.
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const server = await startScriptedServer(async () => {
    await released;
    return {
      status: 200,
      json: {
        ...RESULT_FIELDS,
        token: 'tok_shared_read',
        external_user_id: 'u',
        status: 'pending',
      },
    };
  });
  try {
    const client = createClient({ apiKey: 'fv_test_shared_signal', baseUrl: server.url });
    const controller = new AbortController();
    // More reads than the key's gate lets through at once: some wait in its queue.
    const reads = Array.from({ length: MANY }, (_, index) =>
      client.getSession(`tok_shared_read_${index}`, { signal: controller.signal }),
    );
    await expect.poll(() => server.requests.length).toBeGreaterThan(0);
    expect(abortListeners(controller.signal)).toBe(1);
    release();
    expect(await Promise.all(reads)).toHaveLength(MANY);
    expect(server.requests).toHaveLength(MANY);
    expect(abortListeners(controller.signal)).toBe(0);
  } finally {
    await server.close();
  }
});
