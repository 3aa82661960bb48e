import { INSPECTOR_SCRIPT } from './inspector-script.js';

const STYLES = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #1d2430; }
h1 { font-size: 1.3rem; margin: 0 0 .5rem; }
.settings, .next { margin: .5rem 0; }
button { margin-right: .4rem; }
table { border-collapse: collapse; width: 100%; margin-top: 1rem; }
th, td { border-bottom: 1px solid #d8dde6; padding: .35rem .5rem; text-align: left; vertical-align: top; }
.state.verified { color: #126b2f; } .state.failed { color: #a4161a; } .state.expired { color: #6c757d; }
.attempts { list-style: none; margin: 0; padding: 0; }
.attempt span { margin-right: .6rem; } .attempt .answer { font-size: 12px; }
.attempt.failed .status, .attempt.dropped .status { color: #a4161a; }
#error { color: #a4161a; }
table:not(.several-accounts) .account { display: none; }
`;

/**
 * The inspector page: sessions with their state (and account, when there are several) and
 * every webhook attempt, buttons to resend a webhook and to drop, delay, corrupt or duplicate
 * the next one. It holds no data itself: its script reads the control endpoints (with the
 * control token, when one is set).
 */
export function renderInspectorPage(nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>faceverify emulator: inspector</title>
  <style nonce="${nonce}">${STYLES}</style>
</head>
<body>
  <h1>faceverify emulator</h1>
  <div class="settings">Callback URL: <code id="callback"></code> · Faults on: <code id="faults"></code></div>
  <div class="next">Next webhook:
    <button data-next="drop">Drop</button>
    <button data-next="delay">Delay 5 s</button>
    <button data-next="corrupt">Corrupt signature</button>
    <button data-next="duplicate">Duplicate</button>
    <button id="clear">Clear faults</button>
  </div>
  <p id="error" role="alert"></p>
  <table id="sessions-table">
    <thead><tr><th>Session</th><th class="account">Account</th><th>User</th><th>State</th><th>Started</th><th>Completed</th><th>Webhook attempts</th><th></th></tr></thead>
    <tbody id="sessions"></tbody>
  </table>
  <p id="empty">No sessions yet: start one with POST /v1/verify.</p>
  <script nonce="${nonce}">${INSPECTOR_SCRIPT}</script>
</body>
</html>`;
}
