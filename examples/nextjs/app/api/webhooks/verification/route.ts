import { after } from 'next/server';
import { faceverify } from '@/lib/faceverify';

/**
 * The signed webhook: the handler reads the exact body bytes itself. Nothing here may call
 * `request.json()` or `request.text()` first. `after` keeps a handler that outlives the
 * answer (acknowledged with 202) running.
 */
export const POST = (request: Request): Promise<Response> =>
  faceverify().webhook(request, { waitUntil: after });
