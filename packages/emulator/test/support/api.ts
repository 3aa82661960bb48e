import { request } from 'node:http';
import type { Emulator } from '../../src/index.js';

/** A parsed JSON object. */
export type Json = Record<string, unknown>;

export interface JsonAnswer {
  status: number;
  headers: Headers;
  body: Json;
  text: string;
}

async function answerOf(response: Response): Promise<JsonAnswer> {
  const text = await response.text();
  let body: Json = {};
  try {
    body = JSON.parse(text) as Json;
  } catch {
    // Left empty: tests that expect JSON fail on their own assertions.
  }
  return { status: response.status, headers: response.headers, body, text };
}

/** `POST /v1/verify` with `body` sent as is (a string) or as JSON. */
export async function postVerify(
  emulator: Emulator,
  body: unknown,
  authorization: string | null = `Bearer ${emulator.apiKey}`,
): Promise<JsonAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (authorization !== null) headers.authorization = authorization;
  return answerOf(
    await fetch(`${emulator.url}/v1/verify`, {
      method: 'POST',
      headers,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
}

/** Opens a session and returns its token and verify_url. */
export async function openSession(
  emulator: Emulator,
  externalUserId = 'user-1',
  redirectUrl?: string,
): Promise<{ token: string; verifyUrl: string }> {
  const answer = await postVerify(emulator, {
    external_user_id: externalUserId,
    ...(redirectUrl === undefined ? {} : { redirect_url: redirectUrl }),
  });
  if (answer.status !== 201) throw new Error(`POST /v1/verify answered ${answer.status}`);
  return { token: String(answer.body.token), verifyUrl: String(answer.body.verify_url) };
}

/** `GET /v1/sessions/:token`. */
export async function getSession(
  emulator: Emulator,
  token: string,
  authorization: string | null = `Bearer ${emulator.apiKey}`,
): Promise<JsonAnswer> {
  return answerOf(
    await fetch(`${emulator.url}/v1/sessions/${encodeURIComponent(token)}`, {
      headers: authorization === null ? {} : { authorization },
    }),
  );
}

/** `POST /v1/sessions/:token/complete` without any credential, as the hosted page sends it. */
export async function postComplete(
  emulator: Emulator,
  token: string,
  body: unknown,
): Promise<JsonAnswer> {
  return answerOf(
    await fetch(`${emulator.url}/v1/sessions/${encodeURIComponent(token)}/complete`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
}

/**
 * `POST /v1/sessions/:token/complete` from another loopback address, to act as a second
 * client IP: on Linux the whole of 127.0.0.0/8 is local.
 */
export function postCompleteFrom(
  localAddress: string,
  emulator: Emulator,
  token: string,
  body: unknown,
): Promise<{ status: number; body: Json }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      `${emulator.url}/v1/sessions/${encodeURIComponent(token)}/complete`,
      {
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/json' },
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json,
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(JSON.stringify(body));
  });
}

/** A control endpoint call: `method` on `/__emulator/<path>` with an optional JSON body. */
export async function control(
  emulator: Emulator,
  method: 'GET' | 'PUT',
  path: string,
  body?: unknown,
): Promise<JsonAnswer> {
  return answerOf(
    await fetch(`${emulator.url}/__emulator/${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
}
