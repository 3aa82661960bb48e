import 'reflect-metadata';
import { createReceiver, MemoryStore, type VerificationCompletedEvent } from '@faceverify/core';
import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { verificationWebhook } from '@faceverify/express';
import { Body, Controller, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { afterEach, expect, it } from 'vitest';

const SECRET = 'whsec_nest_mounted_first_7d2e';

@Controller()
class ProfileController {
  @Post('profile')
  save(@Body() body: unknown): { saved: unknown } {
    return { saved: body };
  }
}

@Module({ controllers: [ProfileController] })
class MountedFirstModule {}

let app: NestExpressApplication | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

it('without rawBody, app.use(verificationWebhook()) before listen() runs before Nest’s JSON parser', async () => {
  const receiver = createReceiver({ secret: SECRET, client: false, store: new MemoryStore() });
  const events: VerificationCompletedEvent[] = [];
  receiver.on('verification.completed', (event) => {
    events.push(event);
  });
  app = await NestFactory.create<NestExpressApplication>(MountedFirstModule, { logger: false });
  app.use(verificationWebhook(receiver));
  await app.listen(0, '127.0.0.1');
  const url = await app.getUrl();

  // Pretty-printed: parsed and re-serialized JSON would not match the signature.
  const payload = fixturePayload({ external_user_id: 'nest_mounted_first' });
  const delivery = await signedDelivery(payload, {
    secret: SECRET,
    rawBody: JSON.stringify(payload, null, 2),
  });
  const answer = await fetch(`${url}/webhooks/verification`, {
    method: 'POST',
    headers: delivery.headers,
    body: new Uint8Array(delivery.body),
  });
  expect(answer.status).toBe(200);
  expect(events.map((event) => event.data.external_user_id)).toEqual(['nest_mounted_first']);

  const profile = await fetch(`${url}/profile`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"name":"Ada"}',
  });
  expect(await profile.json()).toEqual({ saved: { name: 'Ada' } });
});
