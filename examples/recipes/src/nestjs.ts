import { createReceiver, type Receiver } from '@faceverify/core';
import { verificationWebhook } from '@faceverify/express';
import {
  Body,
  Controller,
  Inject,
  type MiddlewareConsumer,
  Module,
  type NestModule,
  Post,
  RequestMethod,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

const RECEIVER = Symbol('faceverify Receiver');

// Starts a verification; the browser goes to verifyUrl, the result comes by webhook.
@Controller('verifications')
class VerificationsController {
  constructor(@Inject(RECEIVER) private readonly receiver: Receiver) {}

  @Post()
  async start(@Body() body: { userId: string }): Promise<{ verifyUrl: string }> {
    const { verifyUrl } = await this.receiver.startVerification({ externalUserId: body.userId });
    return { verifyUrl };
  }
}

@Module({
  controllers: [VerificationsController],
  // FACEVERIFY_WEBHOOK_SECRET, FACEVERIFY_API_KEY and FACEVERIFY_BASE_URL from the environment.
  providers: [{ provide: RECEIVER, useFactory: () => createReceiver() }],
})
class AppModule implements NestModule {
  constructor(@Inject(RECEIVER) private readonly receiver: Receiver) {}

  configure(consumer: MiddlewareConsumer): void {
    const webhook = verificationWebhook(this.receiver, { path: '/webhooks/verification' }).on(
      'verification.completed',
      async ({ data }) => {
        console.log(`verification of ${data.external_user_id}: ${data.status}`); // your database here
      },
    );
    consumer
      .apply(webhook)
      .forRoutes({ path: 'webhooks/verification', method: RequestMethod.POST });
  }
}

// Nest's JSON parser runs before any middleware: with rawBody it keeps the exact bytes as
// req.rawBody, which the middleware verifies (the signature covers the bytes sent).
const app = await NestFactory.create(AppModule, { rawBody: true, logger: ['error', 'warn'] });
app.get<Receiver>(RECEIVER).start(); // polls for results whose webhook never arrives
const port = Number(process.env.PORT ?? 3000);
await app.listen(port, '127.0.0.1');
console.log(`listening on http://127.0.0.1:${port}`);
