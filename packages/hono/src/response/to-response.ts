import type { ReceiverResponse } from '@faceverify/core';

/** The Receiver's answer as a Fetch Response: status, headers and body as they are. */
export function toResponse(answer: ReceiverResponse): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}
