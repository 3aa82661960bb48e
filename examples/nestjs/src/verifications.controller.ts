import { ApiError, type Receiver, returnPage, sendResultEvents } from '@faceverify/core';
import { Body, Controller, Get, Inject, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { readUserId } from './read-user-id.js';
import { PUBLIC_ADDRESS, type PublicAddress, RECEIVER } from './tokens.js';
import { UserVerifications } from './user-verifications.js';

/** Starting a verification, the browser's return, and what the webhook recorded. */
@Controller()
export class VerificationsController {
  constructor(
    @Inject(RECEIVER) private readonly receiver: Receiver,
    @Inject(UserVerifications) private readonly verifications: UserVerifications,
    @Inject(PUBLIC_ADDRESS) private readonly address: PublicAddress,
  ) {}

  // Starts a session and gives the browser the hosted page's address, and nothing else.
  @Post('verifications')
  async start(@Body() body: unknown, @Res() res: Response): Promise<void> {
    const userId = readUserId(body);
    if (userId === undefined) {
      res.status(400).json({ error: 'A JSON body with a "userId" string is required.' });
      return;
    }
    try {
      const { verifyUrl } = await this.receiver.startVerification({
        externalUserId: userId,
        redirectUrl: `${this.address.url}/verification/return`,
      });
      res.status(201).json({ verifyUrl });
    } catch (error) {
      console.error('Could not start a verification:', error);
      res.status(502).json({ error: 'The verification service is unavailable.' });
    }
  }

  // The hosted page sends the browser back here. Its address is not the result: ask the service.
  @Get('verification/return')
  async returned(@Query('token') token: unknown, @Res() res: Response): Promise<void> {
    if (typeof token !== 'string' || token === '') {
      res.status(400).type('text').send('The address has no verification token.');
      return;
    }
    try {
      const confirmed = await this.receiver.confirm(token);
      // A token this app never started: answered without asking the service.
      if (confirmed.status === 'unknown') {
        res.status(404).type('text').send('This verification is not known.');
        return;
      }
      res.type('html').send(returnPage(confirmed, token));
    } catch (error) {
      const unknown = error instanceof ApiError && error.serviceStatus === 404;
      res
        .status(unknown ? 404 : 502)
        .type('text')
        .send(unknown ? 'This verification is not known.' : 'Try again in a moment.');
    }
  }

  // The return page's live state: Server-Sent Events that end with the result. Written to
  // the raw response (@Res), so Nest neither serializes nor closes it; the wait is cancelled
  // when the browser goes away.
  @Get('verification/events/:token')
  events(@Param('token') token: string, @Res() res: Response): void {
    void sendResultEvents(this.receiver, token, res);
  }

  // What the handler recorded, from the webhook or from polling.
  @Get('verifications/:userId')
  result(@Param('userId') userId: string, @Res() res: Response): void {
    const verification = this.verifications.get(userId);
    if (verification) res.json(verification);
    else res.status(404).json({ error: 'No result for this user yet.' });
  }
}
