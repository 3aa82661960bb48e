import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createReceiver, MemoryStore } from '../../src/index.js';
import { fixturePayload } from '../../src/testing/index.js';
import { MAX_JSON_DEPTH } from '../../src/wire/payload/parse-json-without-prototype-keys.js';

// Replays what the HTTP fuzzer found: a correctly signed body with a member nested 40,000 deep
// was accepted by the parser, then overflowed the stack where the result is sealed, and was
// answered 503 store_unavailable, blaming the store. Nesting is bounded at the parser.
const SECRET = 'whsec_payload_depth_0123456789';

/** A signed payload whose `extra` holds `levels` objects, each inside the one before. */
function signedNested(levels: number) {
  // Written as text: JSON.stringify itself overflows on the deepest of these. One-letter
  // keys keep 40,000 levels under maxBodyBytes, as the fuzzer's body was.
  const extra = `${'{"a":'.repeat(levels)}"leaf"${'}'.repeat(levels)}`;
  const text = JSON.stringify(fixturePayload()).replace('"extra":{}', `"extra":${extra}`);
  const signature = createHmac('sha256', SECRET).update(text).digest('hex');
  return {
    method: 'POST',
    headers: { 'x-webhook-signature': signature },
    body: new TextEncoder().encode(text),
  };
}

async function answerTo(levels: number) {
  const receiver = createReceiver({
    secret: SECRET,
    client: false,
    store: new MemoryStore(),
    logger: false,
  });
  const delivered: unknown[] = [];
  receiver.on('verification.completed', (event) => {
    delivered.push(event);
  });
  const answer = await receiver.receive(signedNested(levels));
  return { answer, delivered };
}

describe('how deep a payload may nest', () => {
  // The payload is level 1 and `extra` level 2: its innermost object is level `levels + 1`.
  it(`a payload nested ${MAX_JSON_DEPTH} levels deep is delivered`, async () => {
    const { answer, delivered } = await answerTo(MAX_JSON_DEPTH - 1);
    expect(answer.status).toBe(200);
    expect(delivered).toHaveLength(1);
  });

  it('one level deeper is 400 payload_invalid, saying why, and nothing is delivered', async () => {
    const { answer, delivered } = await answerTo(MAX_JSON_DEPTH);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({
      error: 'payload_invalid',
      message: `The JSON is nested deeper than ${MAX_JSON_DEPTH} levels.`,
    });
    expect(delivered).toEqual([]);
  });

  it('a member nested 40,000 deep is 400 payload_invalid, not a store failure', async () => {
    const { answer } = await answerTo(40_000);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error).toBe('payload_invalid');
  });
});
