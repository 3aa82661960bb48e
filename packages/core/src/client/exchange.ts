/** One request of the API client, as a transport sends it. */
export interface ExchangeRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** JSON text, for a POST. */
  body?: string | undefined;
  /** Aborts the request, whether it waits for the answer or for the rest of its body. */
  signal: AbortSignal;
}

/** Reads a response header by name, case-insensitively; `null` when absent (as `Headers`). */
export interface HeaderReader {
  get(name: string): string | null;
}

/** An answer read whole: its status, its headers and its body as text. */
export interface ExchangeAnswer {
  status: number;
  headers: HeaderReader;
  text: string;
}

/**
 * Sends one request and reads its whole answer. Rejects with the signal's reason when it
 * aborts, and with an error whose `cause` says why when no answer was read (a refused
 * connection, a connection closed mid-body).
 */
export type HttpExchange = (request: ExchangeRequest) => Promise<ExchangeAnswer>;

/** An exchange through `fetchImpl`: the `fetch` option, and the default where Node's is not. */
export function fetchExchange(fetchImpl: typeof fetch): HttpExchange {
  return async ({ url, method, headers, body, signal }) => {
    const init: RequestInit = { method, headers, signal };
    if (body !== undefined) init.body = body;
    // Called through a local so that `this` is never an object of ours: Workers reject that.
    const response = await fetchImpl(url, init);
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
}
