const encoder = new TextEncoder();

/** The bytes a body is signed over: strings are UTF-8 encoded, byte arrays are used as they are. */
export function bodyBytes(body: string | Uint8Array): Uint8Array {
  return typeof body === 'string' ? encoder.encode(body) : body;
}
