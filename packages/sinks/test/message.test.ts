import type { VerificationCompletedEvent } from '@faceverify/core';
import { fixturePayload } from '@faceverify/core/testing';
import { expect, it } from 'vitest';
import { encodeSinkMessage, SinkError, sinkMessage } from '../src/index.js';
import { sinkFailure } from '../src/sink-error.js';

const IMAGE_URL = 'https://files.example.test/front/m.jpg?sig=secret-signature';

function event(overrides: Partial<VerificationCompletedEvent> = {}): VerificationCompletedEvent {
  return {
    type: 'verification.completed',
    id: 'evt_0123456789abcdef0123456789abcdef',
    source: 'webhook',
    sessionToken: 'sess_secret_token_value',
    receivedAt: new Date(Date.UTC(2030, 0, 1)),
    data: fixturePayload({ frontImageUrl: IMAGE_URL, external_user_id: 'user_m' }),
    frontImage: { state: 'live', expiresAt: new Date(Date.UTC(2030, 0, 1, 0, 15)) },
    attempt: 3,
    secretLabel: 'current',
    confirmed: true,
    superseded: false,
    ...overrides,
  };
}

it('a message holds the result and its id, never the session token, the attempt or the image link', () => {
  const text = encodeSinkMessage(
    event({ account: 'acme', sessionStartedAt: new Date(Date.UTC(2029, 11, 31, 23, 50)) }),
  );
  expect(JSON.parse(text)).toEqual({
    id: 'evt_0123456789abcdef0123456789abcdef',
    type: 'verification.completed',
    source: 'webhook',
    account: 'acme',
    receivedAt: '2030-01-01T00:00:00.000Z',
    confirmed: true,
    sessionStartedAt: '2029-12-31T23:50:00.000Z',
    superseded: false,
    data: {
      event: 'verification.completed',
      status: 'verified',
      external_user_id: 'user_m',
      confidence: 0.987,
      livenessPassed: true,
      duplicate: false,
      risk: 'low',
      reason: null,
      extra: {},
    },
  });
  expect(text).not.toContain('sess_secret_token_value');
  expect(text).not.toContain('secret-signature');
});

it('a superseded result says so, so a consumer for which the newest session decides can skip it', () => {
  expect(sinkMessage(event({ superseded: true })).superseded).toBe(true);
  expect(sinkMessage(event()).sessionStartedAt).toBeUndefined();
});

it('every retry sends the same message: it does not change with the attempt', () => {
  expect(encodeSinkMessage(event({ attempt: 1 }))).toBe(encodeSinkMessage(event({ attempt: 7 })));
});

it('with includeFrontImageUrl, the link and its state are in the message', () => {
  const message = sinkMessage(event(), { includeFrontImageUrl: true });
  expect(message.data.frontImageUrl).toBe(IMAGE_URL);
  expect(message.frontImage).toEqual({ state: 'live', expiresAt: '2030-01-01T00:15:00.000Z' });
  expect(
    sinkMessage(
      event({ frontImage: { state: 'expired', expiredAt: new Date(Date.UTC(2030, 0, 1)) } }),
      { includeFrontImageUrl: true },
    ).frontImage,
  ).toEqual({ state: 'expired', expiredAt: '2030-01-01T00:00:00.000Z' });
});

it("a sink's error repeats the client's message without any URL in it, and keeps its code", () => {
  const client = Object.assign(
    new Error('connect to amqp://app:hunter2@mq.internal:5672/vhost refused'),
    { code: 'ECONNREFUSED' },
  );
  const error = sinkFailure('rabbitmq', 'Connecting to RabbitMQ failed', client);
  expect(error).toBeInstanceOf(SinkError);
  expect(error.message).toBe('Connecting to RabbitMQ failed: connect to <url> refused');
  expect(error.clientCode).toBe('ECONNREFUSED');
  expect(error.sink).toBe('rabbitmq');
  expect(error).not.toHaveProperty('cause');
});
