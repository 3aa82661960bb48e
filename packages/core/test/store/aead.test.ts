import { describe, expect, it } from 'vitest';
import * as node from '../../src/store/sealed/aead-node.js';
import * as web from '../../src/store/sealed/aead-web.js';
import { fromBase64Url } from '../../src/store/sealed/base64-url.js';

const key = new Uint8Array(32).map((_, index) => index + 1);
const iv = new Uint8Array(12).map((_, index) => 200 - index);
const plain = 'a result, sealed: ünïcödé and 🙂';
const aad = 't1:record-key';

/** A sealed part's IV, ciphertext and tag, as `openAesGcm` takes them. */
function opened(implementation: typeof node | typeof web, part: string, withAad = aad) {
  const bytes = fromBase64Url(part);
  return implementation.openAesGcm(
    key,
    bytes.subarray(0, 12),
    new TextEncoder().encode(withAad),
    bytes.subarray(12),
  );
}

describe('#aead: node:crypto and Web Crypto seal the same text, and each opens the other', () => {
  it('text and bytes seal alike, as the IV, ciphertext and tag in base64url', async () => {
    const fromNode = node.sealAesGcm(key, iv, aad, plain);
    const fromWeb = await web.sealAesGcm(key, iv, aad, plain);
    expect(fromNode).toBe(fromWeb);
    const encoder = new TextEncoder();
    expect(node.sealAesGcm(key, iv, encoder.encode(aad), encoder.encode(plain))).toBe(fromNode);
    expect([...fromBase64Url(fromNode).subarray(0, 12)]).toEqual([...iv]);
    expect(new TextDecoder().decode(opened(node, fromWeb) as Uint8Array)).toBe(plain);
    expect(new TextDecoder().decode(await opened(web, fromNode))).toBe(plain);
  });

  it('neither opens a part under other associated data', async () => {
    const part = node.sealAesGcm(key, iv, aad, plain);
    expect(() => opened(node, part, 't1:another-record')).toThrow();
    await expect(opened(web, part, 't1:another-record')).rejects.toThrow();
  });
});
