import type { Client } from '../client/index.js';
import type { DeliveryContext } from './delivery-context.js';
import { requireClient } from './require-client.js';

/**
 * The client a session is asked about with: the Receiver's, or on a Receiver of several
 * accounts, that of the session's account, `undefined` when the Receiver no longer has it
 * (a session is never asked about with another account's key). Rejects when the resolver does.
 */
export async function sessionClient(
  context: Pick<DeliveryContext, 'client' | 'accounts'>,
  session: { account?: string },
  action: string,
): Promise<Client | undefined> {
  const { accounts } = context;
  if (!accounts) return requireClient(context, action);
  if (session.account === undefined) return undefined;
  const found = accounts.get(session.account);
  return (found instanceof Promise ? await found : found)?.client;
}
