/**
 * A row of the store's tables that the store cannot have written (an unknown state, a result
 * that is not a JSON object with a payload, a time that is not a whole number). Each store
 * reports it as its own error with the failure `malformed`; the message names what is wrong
 * and never the row's values, which may hold a user's result.
 */
export class MalformedRowError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedRowError';
  }
}
