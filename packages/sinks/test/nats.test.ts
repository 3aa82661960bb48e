import { type NatsServer, startNatsServer } from '@faceverify/test-support/nats-server';
import { type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SinkError, type SinkMessage } from '../src/index.js';
import { natsJetStreamSink } from '../src/nats.js';
import { failsFirstRun, IMAGE_URL, sinkReceiver, tally } from './support/receiver.js';

const HOUR_NS = 3_600_000_000_000;

let server: NatsServer;
let connection: NatsConnection;
let manager: JetStreamManager;

beforeAll(async () => {
  server = await startNatsServer();
  connection = await connect({
    servers: server.url,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 50,
  });
  manager = await jetstreamManager(connection);
});

afterAll(async () => {
  await connection?.close();
  await server?.stop();
});

/** A stream of its own for a test, deduplicating over an hour, as the README advises. */
async function stream(name: string): Promise<string> {
  await manager.streams.add({
    name,
    subjects: [`${name}.results`],
    duplicate_window: HOUR_NS,
  });
  return `${name}.results`;
}

/** Resolves at the connection's next status of `type` (`reconnect`: it is connected again). */
async function statusOf(nats: NatsConnection, type: string): Promise<void> {
  for await (const status of nats.status()) if (status.type === type) return;
}

/** Every message of the stream: its `Nats-Msg-Id` and body. */
async function messages(name: string): Promise<{ msgId: string; message: SinkMessage }[]> {
  const { state } = await manager.streams.info(name);
  const read = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    const stored = await manager.streams.getMessage(name, { seq });
    if (!stored) continue;
    read.push({
      msgId: stored.header.get('Nats-Msg-Id'),
      message: stored.json<SinkMessage>(),
    });
  }
  return read;
}

it('publishes each result once with its event id as Nats-Msg-Id, without the session token or the image link', async () => {
  const subject = await stream('EACH');
  const { receiver, deliver, seen } = sinkReceiver();
  receiver.on(
    'verification.completed',
    natsJetStreamSink({ jetstream: jetstream(connection), subject }),
  );
  for (const user of ['user_a', 'user_b', 'user_c']) expect(await deliver(user)).toBe(200);

  const stored = await messages('EACH');
  expect(stored.map((entry) => entry.msgId)).toEqual(seen);
  expect(stored.map((entry) => entry.message.id)).toEqual(seen);
  for (const { message } of stored) {
    expect(message).not.toHaveProperty('sessionToken');
    expect(JSON.stringify(message)).not.toContain(IMAGE_URL);
  }
});

it('a retry of a result already published is acknowledged as a duplicate: the stream has it once', async () => {
  const subject = await stream('RETRIED');
  const { receiver, deliver, retryAfter, seen } = sinkReceiver();
  receiver.on(
    'verification.completed',
    natsJetStreamSink({ jetstream: jetstream(connection), subject }),
  );
  receiver.on('verification.completed', failsFirstRun());
  for (const user of ['user_a', 'user_b']) expect(await deliver(user)).toBe(500);
  expect(await retryAfter(5_000)).toMatchObject({ delivered: 2 });

  expect(tally(seen)).toEqual({ distinct: 2, duplicates: 2 });
  expect(tally((await messages('RETRIED')).map((entry) => entry.msgId))).toEqual({
    distinct: 2,
    duplicates: 0,
  });
});

it('results that arrive while NATS is down for 30 s wait in the store and are published once it is back, none lost, none twice', async () => {
  const subject = await stream('DOWN');
  const { receiver, deliver, retryAfter, seen } = sinkReceiver();
  const errors: unknown[] = [];
  receiver.on('error', (error) => errors.push(error));
  receiver.on(
    'verification.completed',
    natsJetStreamSink({ jetstream: jetstream(connection), subject, timeoutMs: 200 }),
  );
  const { port, dir } = server;
  const reconnected = statusOf(connection, 'reconnect');
  await server.stop({ remove: false });

  const users = ['user_1', 'user_2', 'user_3'];
  for (const user of users) expect(await deliver(user)).toBe(500);
  expect(await retryAfter(5_000)).toMatchObject({ leased: 3, delivered: 0 });
  expect(await retryAfter(30_000)).toMatchObject({ leased: 3, delivered: 0 });
  expect(errors.length).toBe(9);
  for (const error of errors) expect(error).toBeInstanceOf(SinkError);

  // The same port and storage: the stream and its deduplication window are kept.
  server = await startNatsServer({ port, dir });
  await reconnected;
  expect(await retryAfter(120_000)).toMatchObject({ leased: 3, delivered: 3 });
  const stored = (await messages('DOWN')).map((entry) => entry.msgId);
  expect(tally(stored)).toEqual({ distinct: 3, duplicates: 0 });
  expect(new Set(stored)).toEqual(new Set(seen));
});

it('refuses a configuration without a subject, saying which option', () => {
  const js = jetstream(connection);
  expect(() => natsJetStreamSink({ jetstream: js, subject: '' })).toThrow(/`subject`/);
  expect(() => natsJetStreamSink({ jetstream: js, subject: 's', timeoutMs: -1 })).toThrow(
    /`timeoutMs`/,
  );
});
