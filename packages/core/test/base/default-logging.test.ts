import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../src/base/logging/logger.js';
import { createReceiver, type Receiver } from '../../src/receiver/create-receiver.js';

// The first rejection says what to check: the variable, and a parser that rewrites the body.
const SIGNATURE_MISMATCH_LOG =
  'Webhook rejected: signature does not match the raw body. Check FACEVERIFY_WEBHOOK_SECRET (or the secret option) against the signing secret in the service Settings, and that nothing rewrites the body before verification (a body parser mounted first).';

const SECRET = 'whsec_default_logging';
const HINT = 'Mount the webhook before express.json().';

const KEPT = new TextEncoder().encode('{"event":"verification.completed"}');
const SIGNED = { 'x-webhook-signature': createHmac('sha256', SECRET).update(KEPT).digest('hex') };

/** What an adapter answers when a body parser consumed a webhook the service signed. */
const rawBodyGone = (receiver: Receiver) =>
  receiver.receive({
    method: 'POST',
    headers: SIGNED,
    body: { kind: 'unavailable', hint: HINT, kept: KEPT },
  });

// Spies only record what reaches the console; the real console methods still run.
function consoleSpies() {
  return {
    error: vi.spyOn(console, 'error'),
    warn: vi.spyOn(console, 'warn'),
    info: vi.spyOn(console, 'info'),
    debug: vi.spyOn(console, 'debug'),
  };
}

function rejectRawBody(logger?: Logger | false) {
  const receiver = createReceiver({
    secret: SECRET,
    client: false,
    ...(logger === undefined ? {} : { logger }),
  });
  return rawBodyGone(receiver);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('raw_body_unavailable is logged once', () => {
  it('goes to console.error with no logger option, once, without a trailing {}', async () => {
    const spies = consoleSpies();
    const receiver = createReceiver({ secret: SECRET, client: false });
    await rawBodyGone(receiver);
    await rawBodyGone(receiver);
    expect(spies.error).toHaveBeenCalledTimes(1);
    const args = spies.error.mock.calls[0]!;
    expect(args).toHaveLength(3);
    expect(args[0]).toBe('[faceverify]');
    expect(args[1]).toContain('The raw request body is not available');
    expect(args[1]).toContain('Mount the webhook before express.json().');
    expect(args[2]).toEqual({ code: 'raw_body_unavailable', count: 1 });
  });

  it('is silent with logger: false', async () => {
    const spies = consoleSpies();
    const response = await rejectRawBody(false);
    expect(response.status).toBe(500);
    for (const spy of Object.values(spies)) expect(spy).not.toHaveBeenCalled();
  });

  it('passes the alarm code and count as the only fields to logger: console', async () => {
    const spies = consoleSpies();
    await rejectRawBody(console);
    expect(spies.error).toHaveBeenCalledTimes(1);
    expect(spies.error.mock.calls[0]).toHaveLength(2);
    expect(spies.error.mock.calls[0]![0]).toContain('The raw request body is not available');
    expect(spies.error.mock.calls[0]![1]).toEqual({ code: 'raw_body_unavailable', count: 1 });
  });

  it('goes to a custom logger only', async () => {
    const spies = consoleSpies();
    const lines: unknown[][] = [];
    await rejectRawBody({ error: (...args: unknown[]) => lines.push(args) });
    expect(lines).toHaveLength(1);
    expect(spies.error).not.toHaveBeenCalled();
  });
});

describe('the default logger', () => {
  it('writes warnings with their (redacted) fields, and no debug or info', async () => {
    const spies = consoleSpies();
    const receiver = createReceiver({ secret: SECRET, client: false });
    const response = await receiver.receive({
      method: 'POST',
      body: new TextEncoder().encode('{"event":"verification.completed"}'),
      headers: { 'x-webhook-signature': 'sha256=00' },
    });
    expect(response.status).toBe(401);
    expect(spies.debug).not.toHaveBeenCalled();
    expect(spies.info).not.toHaveBeenCalled();
    expect(spies.warn).toHaveBeenCalledTimes(1);
    const args = spies.warn.mock.calls[0]!;
    expect(args[0]).toBe('[faceverify]');
    expect(args[1]).toBe(SIGNATURE_MISMATCH_LOG);
    expect(JSON.stringify(args)).not.toContain(SECRET);
  });
});
