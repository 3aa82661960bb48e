import type { Receiver } from '@faceverify/core';
import { type DynamicModule, Module } from '@nestjs/common';
import { HealthController } from './health.controller.js';
import { PUBLIC_ADDRESS, type PublicAddress, RECEIVER } from './tokens.js';
import { UserVerifications } from './user-verifications.js';
import { VerificationsController } from './verifications.controller.js';
import { WebhookModule } from './webhook.module.js';

/** The app's root module; `appModule()` gives it its providers. */
@Module({})
export class AppModule {}

/** The app: one Receiver for the webhook, polling and starting sessions. */
export function appModule(receiver: Receiver, address: PublicAddress): DynamicModule {
  const shared = [
    { provide: RECEIVER, useValue: receiver },
    { provide: PUBLIC_ADDRESS, useValue: address },
    { provide: UserVerifications, useValue: new UserVerifications() },
  ];
  return {
    module: AppModule,
    global: true,
    providers: shared,
    exports: shared.map((provider) => provider.provide),
    imports: [WebhookModule],
    controllers: [VerificationsController, HealthController],
  };
}
