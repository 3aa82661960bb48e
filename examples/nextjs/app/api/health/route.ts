import { faceverify } from '@/lib/faceverify';

// Read at request time: the snapshot changes with every webhook.
export const dynamic = 'force-dynamic';

/** For a load balancer or an uptime check: 503 only when results cannot arrive as they should. */
export async function GET(): Promise<Response> {
  const health = await faceverify().receiver.health();
  return Response.json(health, { status: health.status === 'failing' ? 503 : 200 });
}
