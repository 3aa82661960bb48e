/**
 * The hosted page's script, run in the person's browser. It sends the chosen outcome to the
 * completion endpoint with the session token from the page's own address, and nothing else:
 * no API key exists on this side. On success it follows the returned redirect address, or
 * says the verification is done when there is none.
 */
export const PAGE_SCRIPT = `
(function () {
  var root = document.getElementById('verification');
  var status = document.getElementById('status');
  var problem = document.getElementById('problem');
  var choices = document.getElementById('choices');
  var buttons = Array.prototype.slice.call(document.querySelectorAll('button[data-outcome]'));
  var expiry = document.querySelector('time[data-local-time]');
  if (expiry) expiry.textContent = new Date(expiry.dateTime).toLocaleString();

  function setBusy(busy) {
    buttons.forEach(function (button) { button.disabled = busy; });
    root.setAttribute('aria-busy', String(busy));
  }
  function showProblem(text) {
    status.textContent = '';
    problem.textContent = text;
    problem.hidden = false;
  }

  async function complete(outcome) {
    problem.hidden = true;
    setBusy(true);
    status.textContent = 'Sending the result…';
    var response;
    var body = null;
    try {
      response = await fetch(root.dataset.completeUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ outcome: outcome }),
        credentials: 'omit',
        cache: 'no-store'
      });
      body = await response.json().catch(function () { return null; });
    } catch (error) {
      showProblem('The result could not be sent: the network failed. Try again.');
      setBusy(false);
      return;
    }
    if (!response.ok) {
      showProblem((body && body.message) || 'The result could not be sent (HTTP ' + response.status + ').');
      // A rate limit or a server error may pass; a missing, used or expired session will not.
      setBusy(!(response.status === 429 || response.status >= 500));
      return;
    }
    root.setAttribute('aria-busy', 'false');
    if (body && typeof body.redirect_url === 'string' && /^https?:/i.test(body.redirect_url)) {
      status.textContent = 'Done. Taking you back…';
      window.location.assign(body.redirect_url);
      return;
    }
    choices.hidden = true;
    status.textContent = 'Done: the result (' + (body && body.status) + ') has been sent. You can close this page.';
  }

  buttons.forEach(function (button) {
    button.addEventListener('click', function () { complete(button.dataset.outcome); });
  });
})();
`;
