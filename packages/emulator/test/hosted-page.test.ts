import { createTestClock } from '@faceverify/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../src/index.js';
import { openSession } from './support/api.js';

let emulator: Emulator | undefined;

afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function page(url: string): Promise<{ status: number; headers: Headers; html: string }> {
  const response = await fetch(url);
  return { status: response.status, headers: response.headers, html: await response.text() };
}

describe('hosted verification page', () => {
  it('shows the session and one button per outcome, with no API key or secret in it', async () => {
    emulator = await startEmulator({ apiKeys: ['fv_test_first_key', 'fv_test_second_key'] });
    const { token, verifyUrl } = await openSession(emulator, 'person-12');
    const { status, headers, html } = await page(verifyUrl);
    expect(status).toBe(200);
    expect(headers.get('content-type')).toMatch(/^text\/html/);
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('person-12');
    for (const outcome of ['verified', 'liveness_failed', 'duplicate', 'high_risk']) {
      expect(html).toMatch(new RegExp(`<button type="button"[^>]*data-outcome="${outcome}"`));
    }
    expect(html).toContain(`${emulator.url}/v1/sessions/${token}/complete`);
    for (const secret of [...emulator.apiKeys, emulator.signingSecret, 'fv_test_', 'whsec_']) {
      expect(html).not.toContain(secret);
    }
    expect(html).not.toMatch(/authorization|bearer/i);
  });

  it('escapes external_user_id, so it cannot inject markup', async () => {
    emulator = await startEmulator();
    const hostile = `"><script>alert('x')</script><img src=x onerror=alert(1)>&`;
    const { verifyUrl } = await openSession(emulator, hostile);
    const { html } = await page(verifyUrl);
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain(
      '&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;&amp;',
    );
    expect(html.match(/<script/g)).toHaveLength(1);
  });

  it('sends headers that keep the token in its address from leaking or the page being framed', async () => {
    emulator = await startEmulator();
    const { verifyUrl } = await openSession(emulator);
    const { headers, html } = await page(verifyUrl);
    expect(headers.get('referrer-policy')).toBe('no-referrer');
    expect(headers.get('cache-control')).toBe('no-store');
    expect(headers.get('x-frame-options')).toBe('DENY');
    const policy = headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([^']+)'/.exec(policy)?.[1];
    expect(nonce).toBeDefined();
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(html).toContain(`<script nonce="${nonce}">`);
    const again = await page(verifyUrl);
    expect(again.headers.get('content-security-policy')).not.toBe(policy);
  });

  it('says so, without buttons, for a completed session', async () => {
    emulator = await startEmulator();
    const { token, verifyUrl } = await openSession(emulator, 'done-user');
    await emulator.completeSession(token, 'verified');
    const { status, html } = await page(verifyUrl);
    expect(status).toBe(200);
    expect(html).toContain('already completed');
    expect(html).not.toContain('data-outcome');
    expect(html).not.toContain('<script');
  });

  it('answers 410 for an expired session and 404 for an unknown token', async () => {
    const clock = createTestClock();
    emulator = await startEmulator({ sessionTtlMs: 30, now: clock.now });
    const { verifyUrl } = await openSession(emulator);
    await clock.advance(30);
    const expired = await page(verifyUrl);
    expect(expired.status).toBe(410);
    expect(expired.html).toContain('expired');
    expect(expired.html).not.toContain('data-outcome');
    const unknown = await page(`${emulator.url}/verify/not-a-token`);
    expect(unknown.status).toBe(404);
    expect(unknown.html).toContain('not found');
  });
});
