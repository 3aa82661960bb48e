import vectorFile from '../fixtures/signature-vectors.json' with { type: 'json' };

/** One entry of the shared signature vectors (fixtures/signature-vectors.json). */
export interface SignatureVector {
  name: string;
  body: Uint8Array;
  signature: string;
  secrets: string[];
  expect: 'accept' | 'reject';
}

interface StoredVector {
  name: string;
  body_base64: string;
  signature: string;
  secrets: string[];
  expect: 'accept' | 'reject';
}

export const signatureVectors: SignatureVector[] = (
  vectorFile as { vectors: StoredVector[] }
).vectors.map((vector) => ({
  name: vector.name,
  body: new Uint8Array(Buffer.from(vector.body_base64, 'base64')),
  signature: vector.signature,
  secrets: vector.secrets,
  expect: vector.expect,
}));
