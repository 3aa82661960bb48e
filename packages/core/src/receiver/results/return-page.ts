import type { ConfirmedSession } from './confirm-session.js';

/** Options of `returnPage`. */
export interface ReturnPageOptions {
  /**
   * Where `sendResultEvents` (or `resultEvents`) answers, the token following it as the last
   * path segment. Default `/verification/events`.
   */
  eventsPath?: string;
}

const MESSAGES = {
  verified: 'Your identity is verified.',
  failed: 'The verification did not succeed.',
  pending: 'The verification is not finished yet: this page updates itself when it is.',
  expired: 'The verification link expired: start again.',
  unknown: 'This verification is not known.',
  undeliverable: 'The result arrived, but could not be recorded yet: we are on it.',
  superseded: 'A newer verification was started since: that one counts, not this one.',
} satisfies Record<ConfirmedSession['status'] | 'undeliverable' | 'superseded', string>;

// Under the status of a result known to be superseded (`ConfirmedSession.superseded`).
const NEWER_STARTED = 'A newer verification has been started since this one.';

// In the browser: the session's state from the events route (Server-Sent Events from
// `sendResultEvents`), shown the moment any instance of the app has recorded the result (or
// settled it as superseded by a newer session: `state: 'superseded'`).
// Text only: nothing received becomes markup.
const LIVE_SCRIPT = `
const source = new EventSource(EVENTS + '/' + encodeURIComponent(TOKEN));
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
 * The HTML page the browser lands on when it comes back from the hosted page. Its status
 * comes from `receiver.confirm`, never from the redirect's query string, which anyone can
 * forge; while it is pending, the page listens to the events route and shows the result the
 * moment it is recorded, without a reload. Serve `sendResultEvents` (Node frameworks) or
 * `resultEvents` (Fetch) at `eventsPath`.
 *
 * @example
 * app.get('/verification/return', async (req, res) => {
 *   const token = String(req.query.token ?? '');
 *   res.type('html').send(returnPage(await receiver.confirm(token), token));
 * });
 * app.get('/verification/events/:token', (req, res) => {
 *   void sendResultEvents(receiver, req.params.token, res);
 * });
 */
export function returnPage(
  confirmed: Pick<ConfirmedSession, 'status' | 'superseded'>,
  token: string,
  options: ReturnPageOptions = {},
): string {
  const { status } = confirmed;
  const eventsPath = options.eventsPath ?? '/verification/events';
  const live =
    status === 'pending'
      ? `<script>const TOKEN = ${scriptJson(token)}; const EVENTS = ${scriptJson(eventsPath)}; const MESSAGES = ${scriptJson(MESSAGES)};${LIVE_SCRIPT}</script>\n`
      : '';
  return `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<title>Verification ${status}</title>
<h1>Verification ${status}</h1>
<p id="message">${MESSAGES[status]}</p>
${confirmed.superseded ? `<p>${NEWER_STARTED}</p>\n` : ''}<p>Confirmed with the verification service, not read from this page's address.</p>
${live}</html>
`;
}
