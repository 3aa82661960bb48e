/**
 * `POST /verifications` on an example app, as its browser would: the app answers 201 with
 * the hosted page's address; the session token is that address's last path segment.
 */
export async function startVerificationAt(
  appUrl: string,
  userId: string,
): Promise<{ verifyUrl: string; token: string }> {
  const response = await fetch(`${appUrl}/verifications`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userId }),
  });
  if (response.status !== 201) {
    throw new Error(`POST /verifications answered ${response.status}: ${await response.text()}`);
  }
  const { verifyUrl } = (await response.json()) as { verifyUrl: string };
  return { verifyUrl, token: new URL(verifyUrl).pathname.split('/').at(-1) ?? '' };
}
