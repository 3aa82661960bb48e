import type { Receiver } from '@faceverify/core';
import { verificationWebhook } from '@faceverify/express';
import {
  Inject,
  type MiddlewareConsumer,
  Module,
  type NestModule,
  RequestMethod,
} from '@nestjs/common';
import { RECEIVER } from './tokens.js';
import { UserVerifications } from './user-verifications.js';

/** The path the service posts webhooks to (the account's callback_url). */
export const WEBHOOK_PATH = 'webhooks/verification';

/**
 * The signed webhook as Nest middleware on its route. Nest's JSON parser runs before any
 * middleware, so the app is created with `rawBody: true`: the parser then keeps the exact
 * bytes as `req.rawBody`, which `verificationWebhook()` verifies instead of the parsed JSON.
 */
@Module({})
export class WebhookModule implements NestModule {
  constructor(
    @Inject(RECEIVER) private readonly receiver: Receiver,
    @Inject(UserVerifications) private readonly verifications: UserVerifications,
  ) {}

  configure(consumer: MiddlewareConsumer): void {
    const webhook = verificationWebhook(this.receiver, { path: `/${WEBHOOK_PATH}` }).on(
      'verification.completed',
      (event) => {
        this.verifications.record(event);
      },
    );
    consumer.apply(webhook).forRoutes({ path: WEBHOOK_PATH, method: RequestMethod.POST });
  }
}
