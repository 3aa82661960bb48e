import { faceverify } from '@/lib/faceverify';

/** What the handler recorded, from the webhook or from polling. */
export async function GET(
  _request: Request,
  { params }: { params: Promise<{ userId: string }> },
): Promise<Response> {
  const { userId } = await params;
  const verification = faceverify().verifications.get(userId);
  if (verification) return Response.json(verification);
  return Response.json({ error: 'No result for this user yet.' }, { status: 404 });
}
