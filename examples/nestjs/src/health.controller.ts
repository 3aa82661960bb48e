import type { Receiver, ReceiverHealth } from '@faceverify/core';
import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import { RECEIVER } from './tokens.js';

/** `GET /health` for a load balancer or an uptime check. */
@Controller()
export class HealthController {
  constructor(@Inject(RECEIVER) private readonly receiver: Receiver) {}

  // 503 only when this instance cannot serve (its store); `failing` or `degraded` alarms, shared
  // by every instance, still serve with 200.
  @Get('health')
  async health(@Res() res: Response): Promise<void> {
    const health: ReceiverHealth = await this.receiver.health();
    res.status(health.ready ? 200 : 503).json(health);
  }
}
