import type { ConfirmedSession } from '@faceverify/core';

const MESSAGES: Record<ConfirmedSession['status'], string> = {
  verified: 'Your identity is verified.',
  failed: 'The verification did not succeed.',
  pending: 'The verification is not finished yet: reload this page in a moment.',
  expired: 'The verification link expired: start again.',
  unknown: 'This verification is not known.',
};

/**
 * The page the browser lands on when it comes back from the hosted page. Its status comes
 * from `receiver.confirm`, never from the redirect's query string, which anyone can forge.
 */
export function returnPage({ status }: ConfirmedSession): string {
  return `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<title>Verification ${status}</title>
<h1>Verification ${status}</h1>
<p>${MESSAGES[status]}</p>
<p>Confirmed with the verification service, not read from this page's address.</p>
</html>
`;
}
