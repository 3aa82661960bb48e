/**
 * The inspector's browser script. It builds the page with DOM calls and `textContent` only:
 * user ids and receivers' answers are data, never markup. It reads the state every second.
 */
export const INSPECTOR_SCRIPT = `
const PREFIX = '/__emulator';
const TOKEN_KEY = 'faceverify-emulator-control-token';
let token = sessionStorage.getItem(TOKEN_KEY);

async function call(method, path, body) {
  const headers = { 'content-type': 'application/json' };
  if (token) headers.authorization = 'Bearer ' + token;
  const init = { method, headers };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await fetch(PREFIX + path, init);
  if (response.status === 401) {
    token = prompt('Control token (the emulator printed it at start)');
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    throw new Error('the control endpoints need the control token');
  }
  if (!response.ok) throw new Error(method + ' ' + path + ': ' + response.status);
  return response.json();
}

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

const time = (ms) => (ms ? new Date(ms).toLocaleTimeString() : '');

function attemptLine(attempt) {
  const faults = [];
  if (attempt.faults.delayedMs) faults.push('delayed ' + attempt.faults.delayedMs + ' ms');
  if (attempt.faults.corrupted) faults.push('signature corrupted');
  if (attempt.faults.duplicate) faults.push('duplicate');
  const status = attempt.status === null ? attempt.outcome : String(attempt.status);
  const li = el('li', undefined, 'attempt ' + attempt.outcome);
  li.append(
    el('span', time(attempt.at), 'at'),
    el('span', status, 'status'),
    el('span', attempt.latencyMs === null ? '' : attempt.latencyMs + ' ms', 'latency'),
    el('code', attempt.answer, 'answer'),
  );
  if (faults.length) li.append(el('span', faults.join(', '), 'faults'));
  return li;
}

const NO_CALLBACK = '(none: webhooks are not sent)';

// With one account its callback URL alone; with several, each account's, and an account column.
function renderAccounts(accounts) {
  const several = accounts.length > 1;
  document.getElementById('sessions-table').classList.toggle('several-accounts', several);
  const callbackOf = (account) => account.callbackUrl || NO_CALLBACK;
  document.getElementById('callback').textContent = several
    ? accounts.map((account) => account.id + ': ' + callbackOf(account)).join(' · ')
    : callbackOf(accounts[0]);
}

function render(state) {
  renderAccounts(state.accounts);
  document.getElementById('faults').textContent =
    Object.keys(state.faults).length ? JSON.stringify(state.faults) : 'none';
  const rows = document.getElementById('sessions');
  rows.replaceChildren();
  for (const session of state.sessions) {
    const row = el('tr');
    row.dataset.session = session.id;
    const attempts = el('ul', undefined, 'attempts');
    for (const attempt of session.attempts) attempts.append(attemptLine(attempt));
    const actions = el('td');
    if (session.completedAt) {
      const resend = el('button', 'Resend webhook', 'resend');
      resend.addEventListener('click', () => act(() => call('POST', '/sessions/' + session.id + '/resend')));
      actions.append(resend);
    }
    row.append(
      el('td', session.id, 'id'),
      el('td', session.account, 'account'),
      el('td', session.externalUserId, 'user'),
      el('td', session.status, 'state ' + session.status),
      el('td', time(session.createdAt)),
      el('td', time(session.completedAt)),
    );
    const cell = el('td');
    cell.append(attempts);
    row.append(cell, actions);
    rows.append(row);
  }
  document.getElementById('empty').hidden = state.sessions.length > 0;
}

async function refresh() {
  try {
    render(await call('GET', '/sessions'));
    document.getElementById('error').textContent = '';
  } catch (error) {
    document.getElementById('error').textContent = error.message;
  }
}

async function act(action) {
  try {
    await action();
  } catch (error) {
    document.getElementById('error').textContent = error.message;
  }
  await refresh();
}

const NEXT = {
  drop: { dropWebhooks: { next: 1 } },
  delay: { delayWebhooks: { next: 1, ms: 5000 } },
  corrupt: { corruptWebhooks: { next: 1 } },
  duplicate: { duplicateWebhooks: { next: 1 } },
};
for (const button of document.querySelectorAll('[data-next]')) {
  button.addEventListener('click', () =>
    act(async () => {
      const current = await call('GET', '/faults');
      await call('PUT', '/faults', { ...current, ...NEXT[button.dataset.next] });
    }),
  );
}
document.getElementById('clear').addEventListener('click', () => act(() => call('PUT', '/faults', {})));
refresh();
setInterval(refresh, 1000);
`;
