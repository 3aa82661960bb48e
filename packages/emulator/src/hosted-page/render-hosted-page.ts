import type { Outcome } from '../sessions/session-record.js';
import { escapeHtml } from './escape-html.js';
import { PAGE_SCRIPT } from './page-script.js';
import { PAGE_STYLES } from './page-styles.js';

/** What the hosted page shows for the token in its address. */
export type HostedPageView =
  | { kind: 'pending'; externalUserId: string; expiresAt: number; completeUrl: string }
  | { kind: 'completed'; externalUserId: string; status: 'verified' | 'failed' }
  | { kind: 'expired' }
  | { kind: 'not_found' };

interface OutcomeChoice {
  outcome: Outcome;
  label: string;
  help: string;
  tone: 'verified' | 'failed';
}

const CHOICES: readonly OutcomeChoice[] = [
  {
    outcome: 'verified',
    label: 'Verified',
    help: 'A live person whose face matches. Low risk.',
    tone: 'verified',
  },
  {
    outcome: 'liveness_failed',
    label: 'Fail: liveness',
    help: 'The liveness check fails, as with a photo held up to the camera.',
    tone: 'failed',
  },
  {
    outcome: 'duplicate',
    label: 'Fail: duplicate',
    help: 'The face is already verified for another user.',
    tone: 'failed',
  },
  {
    outcome: 'high_risk',
    label: 'Fail: high risk',
    help: 'The risk signals are too high to accept the verification.',
    tone: 'failed',
  },
];

const CAMERA_ILLUSTRATION = `<div class="camera" aria-hidden="true">
  <svg width="120" height="120" viewBox="0 0 120 120" fill="none" stroke="currentColor" stroke-width="3">
    <ellipse cx="60" cy="60" rx="38" ry="48" stroke-dasharray="8 6"/>
    <circle cx="47" cy="52" r="3" fill="currentColor"/>
    <circle cx="73" cy="52" r="3" fill="currentColor"/>
    <path d="M48 76q12 9 24 0" stroke-linecap="round"/>
  </svg>
</div>`;

function choiceItem(choice: OutcomeChoice): string {
  const helpId = `help-${choice.outcome}`;
  return `<li>
        <button type="button" class="${choice.tone}" data-outcome="${choice.outcome}" aria-describedby="${helpId}">${escapeHtml(choice.label)}</button>
        <p id="${helpId}">${escapeHtml(choice.help)}</p>
      </li>`;
}

function pendingBody(view: Extract<HostedPageView, { kind: 'pending' }>): string {
  const expires = new Date(view.expiresAt).toISOString();
  return `<main id="verification" aria-labelledby="title" data-complete-url="${escapeHtml(view.completeUrl)}">
    <p class="badge">Local emulator</p>
    <h1 id="title">Verify your identity</h1>
    <p class="lead">This page stands in for the hosted face verification page. No camera is used: choose the result to simulate. Your application receives it by webhook, and you are then taken back to it.</p>
    ${CAMERA_ILLUSTRATION}
    <dl>
      <dt>User</dt><dd>${escapeHtml(view.externalUserId)}</dd>
      <dt>Link expires</dt><dd><time datetime="${expires}" data-local-time>${expires}</time></dd>
    </dl>
    <fieldset id="choices">
      <legend>Result to simulate</legend>
      <ul class="outcomes">
      ${CHOICES.map(choiceItem).join('\n      ')}
      </ul>
    </fieldset>
    <p id="status" class="status" role="status" aria-live="polite"></p>
    <p id="problem" class="problem" role="alert" hidden></p>
    <noscript><p class="problem">This page needs JavaScript to send the result.</p></noscript>
    <p class="note">A verification link works once and only for a short time.</p>
  </main>`;
}

function messageBody(title: string, text: string): string {
  return `<main aria-labelledby="title">
    <p class="badge">Local emulator</p>
    <h1 id="title">${escapeHtml(title)}</h1>
    <p class="lead">${escapeHtml(text)}</p>
  </main>`;
}

function bodyOf(view: HostedPageView): string {
  switch (view.kind) {
    case 'pending':
      return pendingBody(view);
    case 'completed':
      return messageBody(
        'Verification already completed',
        `The verification for ${view.externalUserId} is complete (${view.status}). This link cannot be used again. You can close this page.`,
      );
    case 'expired':
      return messageBody(
        'This verification link has expired',
        'Go back to the application and start the verification again.',
      );
    case 'not_found':
      return messageBody(
        'Verification not found',
        'This verification link is not valid. Go back to the application and start again.',
      );
  }
}

/**
 * The hosted verification page. Styles and script carry `nonce`, which the page's Content
 * Security Policy requires, so no injected markup could run even if escaping were missed.
 */
export function renderHostedPage(view: HostedPageView, nonce: string): string {
  const script =
    view.kind === 'pending' ? `\n  <script nonce="${nonce}">${PAGE_SCRIPT}</script>` : '';
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <title>Verify your identity · faceverify emulator</title>
  <style nonce="${nonce}">${PAGE_STYLES}</style>
</head>
<body>
  ${bodyOf(view)}${script}
</body>
</html>
`;
}
