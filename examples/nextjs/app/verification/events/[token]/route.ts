import { resultEvents } from '@faceverify/core';
import { faceverify } from '@/lib/faceverify';

/**
 * The return page's live state: Server-Sent Events that end with the result the moment it
 * is recorded. `resultEvents` cancels the wait when the browser goes away.
 */
export async function GET(
  _request: Request,
  { params }: { params: Promise<{ token: string }> },
): Promise<Response> {
  const { token } = await params;
  return resultEvents(faceverify().receiver, token);
}
