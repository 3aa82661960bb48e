/** A response read to the end, so a case can assert on it after the connection is gone. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as a JSON object, or `undefined` when it is not one. */
  json: Record<string, unknown> | undefined;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

export async function readAnswer(response: Response): Promise<Answer> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: parseObject(text) };
}

export function answerFromParts(status: number, headers: Headers, text: string): Answer {
  return { status, headers, text, json: parseObject(text) };
}
