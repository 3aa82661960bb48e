import type { ConfirmedSession } from '@faceverify/core';

const MESSAGES = {
  verified: 'Your identity is verified.',
  failed: 'The verification did not succeed.',
  pending: 'The verification is not finished yet: this page updates itself when it is.',
  expired: 'The verification link expired: start again.',
  unknown: 'This verification is not known.',
  undeliverable: 'The result arrived, but could not be recorded yet: we are on it.',
} satisfies Record<ConfirmedSession['status'] | 'undeliverable', string>;

// In the browser: the session's state from `/verification/events/:token` (Server-Sent
// Events from the server's `sendResultEvents`), shown the moment any instance of this app
// has recorded the result. Text only: nothing received becomes markup.
const LIVE_SCRIPT = `
const source = new EventSource('/verification/events/' + encodeURIComponent(TOKEN));
source.addEventListener('state', (event) => {
  const { state, status } = JSON.parse(event.data);
  if (state === 'pending') return;
  source.close();
  const shown = state === 'completed' ? status : state === 'failed' ? 'undeliverable' : state;
  document.title = 'Verification ' + shown;
  document.querySelector('h1').textContent = 'Verification ' + shown;
  document.querySelector('#message').textContent = MESSAGES[shown] ?? '';
});
`;

/** JSON for a script element: `<` escaped, so no string in it can close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replaceAll('<', '\\u003c');

/**
 * The page the browser lands on when it comes back from the hosted page. Its status comes
 * from `receiver.confirm`, never from the redirect's query string, which anyone can forge;
 * while it is pending, the page listens for the result and shows it when it arrives.
 */
export function returnPage({ status }: ConfirmedSession, token: string): string {
  const live =
    status === 'pending'
      ? `<script>const TOKEN = ${scriptJson(token)}; const MESSAGES = ${scriptJson(MESSAGES)};${LIVE_SCRIPT}</script>\n`
      : '';
  return `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<title>Verification ${status}</title>
<h1>Verification ${status}</h1>
<p id="message">${MESSAGES[status]}</p>
<p>Confirmed with the verification service, not read from this page's address.</p>
${live}</html>
`;
}
