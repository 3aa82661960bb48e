'use client';

import { useEffect, useState } from 'react';

/** What the page says for each status it can show. */
export const MESSAGES = {
  verified: 'Your identity is verified.',
  failed: 'The verification did not succeed.',
  pending: 'The verification is not finished yet: this page updates itself when it is.',
  expired: 'The verification link expired: start again.',
  unknown: 'This verification is not known.',
  undeliverable: 'The result arrived, but could not be recorded yet: we are on it.',
};

export type ShownStatus = keyof typeof MESSAGES;

/**
 * The pending return page's heading and message, updated in place from
 * `/verification/events/[token]` the moment the result is recorded. React renders what it
 * receives as text, never as markup.
 */
export function LiveStatus({ token }: { token: string }) {
  const [status, setStatus] = useState<ShownStatus>('pending');
  useEffect(() => {
    const source = new EventSource(`/verification/events/${encodeURIComponent(token)}`);
    source.addEventListener('state', (event) => {
      const { state, status } = JSON.parse(event.data) as { state: string; status?: string };
      if (state === 'pending') return;
      source.close();
      const shown = state === 'completed' ? status : state === 'failed' ? 'undeliverable' : state;
      if (shown !== undefined && shown in MESSAGES) setStatus(shown as ShownStatus);
    });
    // A page that goes away stops listening; the server then cancels its wait.
    return () => source.close();
  }, [token]);
  return (
    <>
      <h1>{`Verification ${status}`}</h1>
      <p id="message" aria-live="polite">
        {MESSAGES[status]}
      </p>
    </>
  );
}
