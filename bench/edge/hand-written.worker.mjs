// A hand-written Worker verifier: Hono, HMAC-SHA256 over the raw bytes with Web Crypto, a
// constant-time comparison, JSON.parse, one D1 update. No replay window, no polling, no store.
import { Hono } from 'hono';

const encoder = new TextEncoder();

function hexToBytes(hex) {
  if (!/^[0-9a-f]{64}$/i.test(hex)) return undefined;
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

async function signatureMatches(secret, body, header) {
  const expected = hexToBytes(header ?? '');
  if (!expected) return false;
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  return crypto.subtle.verify('HMAC', key, expected, body);
}

const app = new Hono();
app.post('/webhooks/verification', async (c) => {
  const body = await c.req.arrayBuffer();
  if (!(await signatureMatches(c.env.WEBHOOK_SECRET, body, c.req.header('x-webhook-signature')))) {
    return c.json({ error: 'signature_invalid' }, 401);
  }
  const data = JSON.parse(new TextDecoder().decode(body));
  await c.env.DB.prepare('UPDATE users SET verified = ?1 WHERE id = ?2')
    .bind(data.status === 'verified' ? 1 : 0, data.external_user_id)
    .run();
  return c.json({ received: true });
});

export default app;
