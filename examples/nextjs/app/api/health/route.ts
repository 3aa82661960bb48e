import { faceverify } from '@/lib/faceverify';

// Read at request time: the snapshot changes with every webhook.
export const dynamic = 'force-dynamic';

/** For a load balancer or an uptime check: 503 only when this instance cannot serve (its store). */
export async function GET(): Promise<Response> {
  const health = await faceverify().receiver.health();
  return Response.json(health, { status: health.ready ? 200 : 503 });
}
