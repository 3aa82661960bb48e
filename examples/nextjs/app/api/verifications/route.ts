import { faceverify } from '@/lib/faceverify';
import { readUserId } from '@/lib/read-user-id';

/** Starts a session and gives the browser the hosted page's address, and nothing else. */
export async function POST(request: Request): Promise<Response> {
  const userId = readUserId(await request.json().catch(() => undefined));
  if (userId === undefined) {
    return Response.json(
      { error: 'A JSON body with a "userId" string is required.' },
      { status: 400 },
    );
  }
  const origin = process.env.APP_URL ?? new URL(request.url).origin;
  try {
    const { verifyUrl } = await faceverify().receiver.startVerification({
      externalUserId: userId,
      redirectUrl: `${origin}/verification/return`,
    });
    return Response.json({ verifyUrl }, { status: 201 });
  } catch (error) {
    console.error('Could not start a verification:', error);
    return Response.json({ error: 'The verification service is unavailable.' }, { status: 502 });
  }
}
