import 'reflect-metadata';
import { createReceiver, MemoryStore, type VerificationCompletedEvent } from '@faceverify/core';
import { fixturePayload, signedDelivery, tamperedDelivery } from '@faceverify/core/testing';
import { verificationWebhook } from '@faceverify/fastify';
import { Body, Controller, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterEach, expect, it } from 'vitest';

const SECRET = 'whsec_nest_fastify_platform_41c9';

@Controller()
class ProfileController {
  @Post('profile')
  save(@Body() body: unknown): { saved: unknown } {
    return { saved: body };
  }
}

@Module({ controllers: [ProfileController] })
class FastifyPlatformModule {}

let app: NestFastifyApplication | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

it('on @nestjs/platform-fastify the plugin verifies the raw bytes while Nest routes still get parsed JSON', async () => {
  const receiver = createReceiver({ secret: SECRET, client: false, store: new MemoryStore() });
  const events: VerificationCompletedEvent[] = [];
  receiver.on('verification.completed', (event) => {
    events.push(event);
  });
  app = await NestFactory.create<NestFastifyApplication>(
    FastifyPlatformModule,
    new FastifyAdapter(),
    { logger: false },
  );
  await app.register(verificationWebhook, { receiver });
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');

  // Pretty-printed: parsed and re-serialized JSON would not match the signature.
  const payload = fixturePayload({ external_user_id: 'nest_user' });
  const delivery = await signedDelivery(payload, {
    secret: SECRET,
    rawBody: JSON.stringify(payload, null, 2),
  });
  const post = (body: Uint8Array, headers: Record<string, string>) =>
    fetch(`${url}/webhooks/verification`, { method: 'POST', headers, body: new Uint8Array(body) });
  expect((await post(delivery.body, delivery.headers)).status).toBe(200);
  expect(events.map((event) => event.data.external_user_id)).toEqual(['nest_user']);

  const tampered = await tamperedDelivery(fixturePayload(), { secret: SECRET });
  const refused = await post(tampered.body, tampered.headers);
  expect(refused.status).toBe(401);
  expect(await refused.json()).toMatchObject({ error: 'signature_invalid' });
  expect(events).toHaveLength(1);

  const profile = await fetch(`${url}/profile`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"name":"Ada"}',
  });
  expect(await profile.json()).toEqual({ saved: { name: 'Ada' } });
});
