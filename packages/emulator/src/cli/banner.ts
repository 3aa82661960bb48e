import type { Emulator } from '../start-emulator.js';
import { EMULATOR_VERSION } from '../version.js';

// Development polls soon: a webhook dropped on this machine shows up within seconds.
const DEVELOPMENT_POLL_SCHEDULE_MS = '5000,10000,30000';

/** What an integrator needs to copy once the emulator runs, with the control endpoints. */
export function renderBanner(emulator: Emulator): string {
  const keys =
    emulator.apiKeys.length === 1
      ? `  API key          ${emulator.apiKey}`
      : emulator.apiKeys.map((key, index) => `  API key ${index + 1}        ${key}`).join('\n');
  const callback =
    emulator.callbackUrl ?? 'not set: use --callback-url or PUT /__emulator/settings';
  const faults = JSON.stringify(emulator.faults());
  const control =
    emulator.controlToken === null
      ? ''
      : `\n  Control token    ${emulator.controlToken}\n  (send it to /__emulator/* as Authorization: Bearer <token>)`;
  return `faceverify emulator ${EMULATOR_VERSION} is running.

  Base URL         ${emulator.url}
${keys}
  Signing secret   ${emulator.signingSecret}
  Callback URL     ${callback}${control}

Environment for your application:
  FACEVERIFY_BASE_URL=${emulator.url}
  FACEVERIFY_API_KEY=${emulator.apiKey}
  FACEVERIFY_WEBHOOK_SECRET=${emulator.signingSecret}
  FACEVERIFY_POLL_SCHEDULE_MS=${DEVELOPMENT_POLL_SCHEDULE_MS}
(The last line polls a session ${DEVELOPMENT_POLL_SCHEDULE_MS.split(',')[0]} ms after its start instead of 60 s, so a dropped
webhook is recovered while you watch; leave it out in production.)
${faults === '{}' ? '' : `\nFaults: ${faults}\n`}
Inspector: ${emulator.url}/__emulator/inspector (sessions, every webhook attempt, resend, faults)
Control: ${emulator.url}/__emulator/stats, /__emulator/faults, /__emulator/settings
Press Ctrl+C to stop.
`;
}
