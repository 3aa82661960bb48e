import { ApiError, type Receiver, returnPage, sendResultEvents } from '@faceverify/core';
import { verificationWebhook } from '@faceverify/express';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { AccountVerifications } from './account-verifications.js';

export interface AppOptions {
  /** One Receiver for every account: the webhooks, the polling and starting sessions. */
  receiver: Receiver;
  /** The ids of the accounts the Receiver serves: the customers of this platform. */
  accounts: readonly string[];
  verifications: AccountVerifications;
  /** Where browsers reach this app; the hosted page sends them back to the account's return page. */
  publicUrl: string;
}

const MAX_USER_ID_LENGTH = 200;

/** The `userId` of a JSON request body, when it is a usable identifier. */
function readUserId(body: unknown): string | undefined {
  const userId = (body as { userId?: unknown } | undefined)?.userId;
  return typeof userId === 'string' && userId !== '' && userId.length <= MAX_USER_ID_LENGTH
    ? userId
    : undefined;
}

/**
 * A platform's app: each customer has an account of the service, and its pages under
 * `/accounts/<account id>/…`. Start a verification in an account, take each account's webhook
 * on its own path, confirm the redirect within the account.
 */
export function createApp({ receiver, accounts, verifications, publicUrl }: AppOptions): Express {
  const app = express();

  // First, before any body parser: each account's callback URL is
  // /webhooks/verification/<account id>, and its webhooks are verified with its secret only.
  app.post(
    '/webhooks/verification/:account',
    verificationWebhook(receiver).on('verification.completed', (event) => {
      verifications.record(event);
    }),
  );
  app.use(express.json());

  // The account in a URL is one of this platform's, or the page does not exist.
  const known = new Set(accounts);
  const knownAccount = (req: Request, res: Response, next: NextFunction) => {
    if (known.has(String(req.params.account))) next();
    else res.status(404).json({ error: 'No such account.' });
  };

  // Starts a session with the account's API key; the browser gets the hosted page's address.
  app.post('/accounts/:account/verifications', knownAccount, async (req, res) => {
    const account = String(req.params.account);
    const userId = readUserId(req.body);
    if (userId === undefined) {
      res.status(400).json({ error: 'A JSON body with a "userId" string is required.' });
      return;
    }
    try {
      const { verifyUrl } = await receiver.startVerification({
        account,
        externalUserId: userId,
        // The return page is the account's: it confirms within the account.
        redirectUrl: `${publicUrl}/accounts/${account}/verification/return`,
      });
      res.status(201).json({ verifyUrl });
    } catch (error) {
      console.error(`Could not start a verification in account ${account}:`, error);
      res.status(502).json({ error: 'The verification service is unavailable.' });
    }
  });

  // The hosted page sends the browser back here. Its address is not the result: ask the
  // service, with this account's key. A token of another account is unknown here.
  app.get('/accounts/:account/verification/return', knownAccount, async (req, res) => {
    const account = String(req.params.account);
    const { token } = req.query;
    if (typeof token !== 'string' || token === '') {
      res.status(400).type('text').send('The address has no verification token.');
      return;
    }
    try {
      const confirmed = await receiver.confirm(token, { account });
      if (confirmed.status === 'unknown') {
        res.status(404).type('text').send('This verification is not known.');
        return;
      }
      res
        .type('html')
        .send(
          returnPage(confirmed, token, { eventsPath: `/accounts/${account}/verification/events` }),
        );
    } catch (error) {
      const unknown = error instanceof ApiError && error.serviceStatus === 404;
      res
        .status(unknown ? 404 : 502)
        .type('text')
        .send(unknown ? 'This verification is not known.' : 'Try again in a moment.');
    }
  });

  // The return page's live state, within the account: another account's token is `unknown`.
  app.get('/accounts/:account/verification/events/:token', knownAccount, (req, res) => {
    const account = String(req.params.account);
    void sendResultEvents(
      { waitForResult: (token, options) => receiver.waitForResult(token, { ...options, account }) },
      String(req.params.token),
      res,
    );
  });

  // What the handler recorded for a user of the account, from the webhook or from polling.
  app.get('/accounts/:account/verifications/:userId', knownAccount, (req, res) => {
    const verification = verifications.get(String(req.params.account), String(req.params.userId));
    if (verification) res.json(verification);
    else res.status(404).json({ error: 'No result for this user of this account yet.' });
  });

  // For a load balancer or an uptime check: 503 only when this instance cannot serve (its store).
  app.get('/health', async (_req, res) => {
    const health = await receiver.health();
    res.status(health.ready ? 200 : 503).json(health);
  });

  return app;
}
