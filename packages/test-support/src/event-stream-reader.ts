/** A Server-Sent Events response read as it arrives, from `eventStreamReader`. */
export interface EventStreamReader {
  response: Response;
  /**
   * Reads until what arrived contains `expected`, or the stream ends; resolves with all that
   * arrived. It has no deadline of its own: the test's timeout bounds the wait.
   */
  until(expected: string): Promise<string>;
}

/**
 * Reads the body of a Server-Sent Events response as it arrives, so a test can act between
 * two events (complete the session once `pending` arrived, then wait for the result).
 *
 * @example
 * const events = eventStreamReader(await fetch(`${url}/verification/events/${token}`));
 * await events.until('data: {"state":"pending"}');
 */
export function eventStreamReader(response: Response): EventStreamReader {
  if (!response.body) throw new Error('The events response has no body: check the route.');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  return {
    response,
    async until(expected) {
      while (!text.includes(expected)) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      return text;
    },
  };
}
