/** A call made through the emulator's helpers was answered with an error status. */
export class EmulatorRequestError extends Error {
  /** The HTTP status of the answer. */
  readonly status: number;
  /** The parsed JSON body of the answer, or its text when it is not JSON. */
  readonly body: unknown;

  constructor(method: string, path: string, status: number, body: unknown) {
    const detail =
      typeof body === 'object' && body !== null && 'message' in body
        ? `: ${String(body.message)}`
        : '';
    super(`${method} ${path} answered ${status}${detail}`);
    this.name = 'EmulatorRequestError';
    this.status = status;
    this.body = body;
  }
}
