const MAX_USER_ID_LENGTH = 200;

/** The `userId` of a JSON request body, when it is a usable identifier. */
export function readUserId(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || !('userId' in body)) return undefined;
  const { userId } = body;
  return typeof userId === 'string' && userId !== '' && userId.length <= MAX_USER_ID_LENGTH
    ? userId
    : undefined;
}
