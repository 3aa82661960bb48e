import { EmulatorRequestError } from './emulator-request-error.js';

/**
 * Makes one JSON request to the emulator and returns the parsed body of a 2xx answer.
 *
 * @throws EmulatorRequestError for any other status.
 */
export async function requestJson(
  method: string,
  url: URL,
  headers: Record<string, string>,
  body: unknown,
): Promise<unknown> {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: the text itself is the most useful thing to report.
  }
  if (!response.ok) throw new EmulatorRequestError(method, url.pathname, response.status, parsed);
  return parsed;
}
