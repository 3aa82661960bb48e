import { notFound } from 'next/navigation';
import { faceverify } from '@/lib/faceverify';
import { LiveStatus, MESSAGES } from './live-status';

/**
 * Where the hosted page sends the browser back. Its address is not the result: the status
 * comes from `receiver.confirm`, never from the query string, which anyone can forge. While
 * it is pending, the page listens for the result and shows it when it arrives.
 */
export default async function ReturnPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { token } = await searchParams;
  if (typeof token !== 'string' || token === '') notFound();
  const session = await faceverify().confirm(token);
  if (!session) notFound();
  return (
    <main>
      {session.status === 'pending' ? (
        <LiveStatus token={token} />
      ) : (
        <>
          <h1>{`Verification ${session.status}`}</h1>
          <p id="message">{MESSAGES[session.status]}</p>
        </>
      )}
      <p>Confirmed with the verification service, not read from this page’s address.</p>
    </main>
  );
}
