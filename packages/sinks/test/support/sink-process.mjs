// A receiver deployed as its own process with two sinks, for the test that kills it: a
// RedisStore, the Redis Streams sink and the HTTP forward, a sweep timer, and the webhook on
// Node's HTTP server. Runs the built packages, as a deployment would.
import { createServer } from 'node:http';
import { createReceiver } from '@faceverify/core';
import { RedisStore } from '@faceverify/redis';
import { httpForwardSink } from '@faceverify/sinks/http';
import { redisStreamSink } from '@faceverify/sinks/redis';
import { Redis } from 'ioredis';

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`sink-process: ${name} is not set`);
  return value;
};

const redis = new Redis(env('REDIS_URL'), { maxRetriesPerRequest: 2 });
redis.on('error', () => {});
const receiver = createReceiver({
  secret: env('WEBHOOK_SECRET'),
  client: false,
  store: new RedisStore({ redis, prefix: env('STORE_PREFIX') }),
  retryScheduleMs: [100, 200],
  sweepIntervalMs: 50,
  leaseMs: 1_000,
});
receiver.on('error', () => {});
receiver.on('verification.completed', redisStreamSink({ redis, stream: env('STREAM') }));
receiver.on(
  'verification.completed',
  httpForwardSink({ url: env('FORWARD_URL'), secret: env('FORWARD_SECRET') }),
);

const server = createServer(async (request, response) => {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  const answer = await receiver.receive({
    method: request.method ?? 'POST',
    headers: request.headers,
    body: new Uint8Array(Buffer.concat(chunks)),
  });
  response.writeHead(answer.status, answer.headers);
  response.end(answer.body);
});
server.listen(Number(env('PORT')), '127.0.0.1', () => {
  receiver.start();
  process.stdout.write('ready\n');
});
