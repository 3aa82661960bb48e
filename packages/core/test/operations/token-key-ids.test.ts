import { describe, expect, it } from 'vitest';
import { ConfigurationError, createReceiver, MemoryStore, tokenKeyIds } from '../../src/index.js';

const SECRET = 'whsec_token_key_ids_0123456789';
const TOKEN_KEY = 'token-key-ids-dedicated-key-0123456789abcdef';

/**
 * The key ids of what a Receiver with these options seals into the store: one tracked
 * session's token, read from the store as it holds it.
 */
async function sealedUnder(options: { secret: string; tokenKeys?: string[] }) {
  const store = new MemoryStore();
  // A client at a closed port: tracking a session asks the service nothing.
  const client = { apiKey: 'fv_test_token_key_ids', baseUrl: 'http://127.0.0.1:9' };
  const receiver = createReceiver({ ...options, client, store, logger: false });
  await receiver.track('tok_sealed_1', 'u_sealed');
  const [record] = await store.leaseDue({
    now: Date.now() + 3_600_000,
    owner: 'test',
    leaseMs: 1,
    limit: 1,
  });
  return (record?.token ?? '').split('.').filter((_, index) => index % 2 === 1);
}

describe('tokenKeyIds: the ids a Receiver seals under, in its order', () => {
  it('the signing secret alone', async () => {
    const ids = await tokenKeyIds({ secrets: [SECRET] });
    expect(ids).toHaveLength(1);
    expect(await sealedUnder({ secret: SECRET })).toEqual(ids);
  });

  it('dedicated token keys first, then the signing secrets', async () => {
    const ids = await tokenKeyIds({ secrets: [SECRET], tokenKeys: [TOKEN_KEY] });
    expect(ids).toEqual([
      ...(await tokenKeyIds({ tokenKeys: [TOKEN_KEY] })),
      ...(await tokenKeyIds({ secrets: [SECRET] })),
    ]);
    expect((await sealedUnder({ secret: SECRET, tokenKeys: [TOKEN_KEY] }))[0]).toBe(ids[0]);
  });

  it('refuses a token key too short, naming where it came from, as createReceiver does', async () => {
    const refused = tokenKeyIds({ tokenKeys: ['short'] }, 'FACEVERIFY_TOKEN_KEYS');
    await expect(refused).rejects.toThrow(ConfigurationError);
    await expect(refused).rejects.toThrow('(FACEVERIFY_TOKEN_KEYS)');
  });
});
