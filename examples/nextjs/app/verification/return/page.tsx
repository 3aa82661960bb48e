import type { ConfirmedSession } from '@faceverify/core';
import { notFound } from 'next/navigation';
import { faceverify } from '@/lib/faceverify';

const MESSAGES: Record<ConfirmedSession['status'], string> = {
  verified: 'Your identity is verified.',
  failed: 'The verification did not succeed.',
  pending: 'The verification is not finished yet: reload this page in a moment.',
  expired: 'The verification link expired: start again.',
  unknown: 'This verification is not known.',
};

/**
 * Where the hosted page sends the browser back. Its address is not the result: the status
 * comes from `receiver.confirm`, never from the query string, which anyone can forge.
 */
export default async function ReturnPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { token } = await searchParams;
  const session =
    typeof token === 'string' && token !== '' ? await faceverify().confirm(token) : undefined;
  if (!session) notFound();
  return (
    <main>
      <h1>{`Verification ${session.status}`}</h1>
      <p>{MESSAGES[session.status]}</p>
      <p>Confirmed with the verification service, not read from this page’s address.</p>
    </main>
  );
}
