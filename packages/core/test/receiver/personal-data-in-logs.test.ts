import { describe, expect, it } from 'vitest';
import { createReceiver, MemoryStore } from '../../src/index.js';
import { type PrivacyCanary, privacyCanary, signedDelivery } from '../../src/testing/index.js';

// A face verification result is special-category personal data: the library's own log lines
// name no user, no status and no image URL unless the app opts in to the status.
const SECRET = 'whsec_personal_data_in_logs';

async function logOfOneDelivery(canary: PrivacyCanary, includePersonalData?: boolean) {
  const lines: string[] = [];
  const write = (message: string, fields?: Record<string, unknown>) =>
    lines.push(`${message} ${JSON.stringify(fields ?? {})}`);
  const receiver = createReceiver({
    secret: SECRET,
    client: false,
    store: new MemoryStore(),
    logger: { debug: write, info: write, warn: write, error: write },
    ...(includePersonalData === undefined ? {} : { includePersonalData }),
  });
  receiver.on('verification.completed', () => undefined);
  const payload = canary.payload({ status: 'failed' });
  const answer = await receiver.receive(await signedDelivery(payload, { secret: SECRET }));
  expect(answer.status).toBe(200);
  expect(lines.some((line) => line.startsWith('Verification result delivered.'))).toBe(true);
  return lines.join('\n');
}

describe("the library's log lines and personal data", () => {
  it('carry no user id, status, reason or image URL by default', async () => {
    const canary = privacyCanary();
    const log = await logOfOneDelivery(canary);
    expect(canary.foundIn(log)).toEqual([]);
    expect(log).not.toMatch(/"status"/);
  });

  it('carry the status with includePersonalData, and still none of the rest', async () => {
    const canary = privacyCanary();
    const log = await logOfOneDelivery(canary, true);
    expect(log).toMatch(/"status":"failed"/);
    expect(canary.foundIn(log)).toEqual([]);
  });
});
