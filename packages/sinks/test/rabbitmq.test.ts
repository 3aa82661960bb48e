import { type RabbitMqServer, startRabbitMqServer } from '@faceverify/test-support/rabbitmq-server';
import { type Channel, type ChannelModel, connect } from 'amqplib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SinkError, type SinkMessage } from '../src/index.js';
import { type RabbitMqSink, rabbitMqSink } from '../src/rabbitmq.js';
import { failsFirstRun, IMAGE_URL, sinkReceiver, tally } from './support/receiver.js';

let server: RabbitMqServer;
const sinks: RabbitMqSink[] = [];

beforeAll(async () => {
  server = await startRabbitMqServer();
}, 60_000);

afterAll(async () => {
  for (const sink of sinks) await sink.close();
  await server?.stop();
});

/** Runs `use` on a channel of a connection of its own, closed after. */
async function withChannel<T>(use: (channel: Channel) => Promise<T>): Promise<T> {
  const connection: ChannelModel = await connect(server.url);
  try {
    return await use(await connection.createChannel());
  } finally {
    await connection.close();
  }
}

/** Declares a durable queue of its own for a test. */
async function queue(name: string): Promise<string> {
  await withChannel((channel) => channel.assertQueue(name, { durable: true }));
  return name;
}

/** Takes every message of the queue: its `messageId`, persistence and body. */
async function drain(name: string) {
  return withChannel(async (channel) => {
    const taken: { messageId: string; persistent: boolean; message: SinkMessage }[] = [];
    for (
      let got = await channel.get(name, { noAck: true });
      got;
      got = await channel.get(name, { noAck: true })
    ) {
      taken.push({
        messageId: got.properties.messageId as string,
        persistent: got.properties.deliveryMode === 2,
        message: JSON.parse(got.content.toString()) as SinkMessage,
      });
    }
    return taken;
  });
}

function sinkTo(routingKey: string): RabbitMqSink {
  const sink = rabbitMqSink({ url: server.url, exchange: '', routingKey });
  sinks.push(sink);
  return sink;
}

it('publishes each result once, persistent and confirmed, with its event id as messageId and neither the session token nor the image link', async () => {
  const name = await queue('each');
  const { receiver, deliver, seen } = sinkReceiver();
  receiver.on('verification.completed', sinkTo(name));
  for (const user of ['user_a', 'user_b', 'user_c']) expect(await deliver(user)).toBe(200);

  const taken = await drain(name);
  expect(taken.map((entry) => entry.messageId)).toEqual(seen);
  for (const { persistent, message } of taken) {
    expect(persistent).toBe(true);
    expect(message).not.toHaveProperty('sessionToken');
    expect(JSON.stringify(message)).not.toContain(IMAGE_URL);
  }
});

it('a retry after the broker confirmed publishes again, with the same messageId: RabbitMQ cannot deduplicate, the consumer does', async () => {
  const name = await queue('retried');
  const { receiver, deliver, retryAfter } = sinkReceiver();
  receiver.on('verification.completed', sinkTo(name));
  receiver.on('verification.completed', failsFirstRun());
  for (const user of ['user_a', 'user_b']) expect(await deliver(user)).toBe(500);
  expect(await retryAfter(5_000)).toMatchObject({ delivered: 2 });

  // Counted: each result twice, the copies under one messageId.
  expect(tally((await drain(name)).map((entry) => entry.messageId))).toEqual({
    distinct: 2,
    duplicates: 2,
  });
});

it('a result no queue takes fails and is kept for a retry, and the error says to bind a queue', async () => {
  const { receiver, deliver, retryAfter } = sinkReceiver();
  const errors: unknown[] = [];
  receiver.on('error', (error) => errors.push(error));
  receiver.on('verification.completed', sinkTo('unbound'));
  expect(await deliver('user_a')).toBe(500);
  expect(errors[0]).toBeInstanceOf(SinkError);
  expect((errors[0] as Error).message).toMatch(/no queue is bound/);

  await queue('unbound');
  expect(await retryAfter(5_000)).toMatchObject({ delivered: 1 });
  expect((await drain('unbound')).length).toBe(1);
});

it('results that arrive while RabbitMQ is down for 30 s wait in the store and are published once it is back, none lost', async () => {
  const name = await queue('down');
  const { receiver, deliver, retryAfter, seen } = sinkReceiver();
  const errors: unknown[] = [];
  receiver.on('error', (error) => errors.push(error));
  receiver.on('verification.completed', sinkTo(name));
  expect(await deliver('user_0')).toBe(200);
  const { port, dir } = server;
  await server.stop({ remove: false });

  const users = ['user_1', 'user_2', 'user_3'];
  for (const user of users) expect(await deliver(user)).toBe(500);
  expect(await retryAfter(5_000)).toMatchObject({ leased: 3, delivered: 0 });
  expect(await retryAfter(30_000)).toMatchObject({ leased: 3, delivered: 0 });
  expect(errors.length).toBe(9);
  for (const error of errors) {
    expect(error).toBeInstanceOf(SinkError);
    expect((error as Error).message).not.toContain('guest');
  }

  // The same node, port and database: the durable queue kept the message sent before.
  server = await startRabbitMqServer({ port, dir });
  expect(await retryAfter(120_000)).toMatchObject({ leased: 3, delivered: 3 });
  const taken = (await drain(name)).map((entry) => entry.messageId);
  expect(tally(taken)).toEqual({ distinct: 4, duplicates: 0 });
  expect(new Set(taken)).toEqual(new Set(seen));
}, 60_000);

it('refuses a configuration without a routing key or a URL, saying which option', () => {
  expect(() =>
    rabbitMqSink({ url: server.url, exchange: '', routingKey: undefined as unknown as string }),
  ).toThrow(/`routingKey`/);
  expect(() => rabbitMqSink({ url: '', exchange: '', routingKey: 'q' })).toThrow(/`url`/);
});
