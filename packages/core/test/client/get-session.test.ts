import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/base/errors.js';
import { createClient } from '../../src/client/index.js';
import {
  RESULT_FIELDS,
  type Reply,
  type ScriptedServer,
  startScriptedServer,
} from './scripted-server.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function clientAnswering(reply: Reply) {
  server = await startScriptedServer(() => reply);
  return createClient({ apiKey: 'fv_test_get_session', baseUrl: server.url, maxRetries: 0 });
}

const SESSION = {
  token: 'tok_1',
  external_user_id: 'user-1',
  created_at: '2030-01-01T00:00:00.000Z',
  completed_at: '2030-01-01T00:01:00.000Z',
};

describe('getSession request', () => {
  it('gets the session with the token encoded in the path', async () => {
    const client = await clientAnswering({ status: 200, json: { ...SESSION, status: 'pending' } });
    await client.getSession('a:b@c+d');
    const [request] = server?.requests ?? [];
    expect(request?.method).toBe('GET');
    expect(request?.url).toBe('/v1/sessions/a%3Ab%40c%2Bd');
    expect(request?.headers.authorization).toBe('Bearer fv_test_get_session');
    expect(request?.headers['content-type']).toBeUndefined();
  });

  it.each(['.', '..', '...', 'a/b', 'a b', 'a?b', 'a#b', '', 'x'.repeat(1025)])(
    'refuses the token %j, which is no single path segment, without a request',
    async (token) => {
      const client = await clientAnswering({
        status: 200,
        json: { ...SESSION, status: 'pending' },
      });
      await expect(client.getSession(token)).rejects.toThrow(TypeError);
      await expect(client.getSession(token)).rejects.toThrow(/one URL path segment/);
      expect(server?.requests).toHaveLength(0);
    },
  );
});

describe('getSession response, read tolerantly', () => {
  it('reads a completed session with its result under "result"', async () => {
    const json = { ...SESSION, status: 'verified', result: RESULT_FIELDS };
    const client = await clientAnswering({ status: 200, json });
    const snapshot = await client.getSession('tok_1');
    expect(snapshot.token).toBe('tok_1');
    expect(snapshot.status).toBe('verified');
    expect(snapshot.raw).toEqual(json);
    expect(snapshot.result).toEqual({
      ...RESULT_FIELDS,
      event: 'verification.completed',
      external_user_id: 'user-1',
      extra: {},
    });
    expect(snapshot.rateLimit).toBeUndefined();
  });

  it('reads a failed session with its result fields at the top level', async () => {
    const json = {
      ...SESSION,
      ...RESULT_FIELDS,
      status: 'failed',
      reason: 'liveness_check_failed',
      livenessPassed: false,
    };
    const client = await clientAnswering({ status: 200, json });
    const snapshot = await client.getSession('tok_1');
    expect(snapshot.status).toBe('failed');
    expect(snapshot.result).toMatchObject({
      event: 'verification.completed',
      status: 'failed',
      external_user_id: 'user-1',
      reason: 'liveness_check_failed',
      livenessPassed: false,
    });
  });

  it('takes external_user_id from the result when the session lacks it', async () => {
    const { external_user_id: _omitted, ...withoutUser } = SESSION;
    const json = {
      ...withoutUser,
      status: 'verified',
      result: { ...RESULT_FIELDS, external_user_id: 'user-9' },
    };
    const client = await clientAnswering({ status: 200, json });
    expect((await client.getSession('tok_1')).result?.external_user_id).toBe('user-9');
  });

  it.each([
    ['pending', 'pending'],
    ['expired', 'expired'],
    ['processing', 'pending'],
    [undefined, 'pending'],
  ])('reads status %j as %j, without a result', async (status, expected) => {
    const client = await clientAnswering({
      status: 200,
      json: { ...SESSION, status, result: null },
    });
    const snapshot = await client.getSession('tok_1');
    expect(snapshot.status).toBe(expected);
    expect(snapshot).not.toHaveProperty('result');
  });

  it('reports the X-RateLimit-* headers', async () => {
    const client = await clientAnswering({
      status: 200,
      json: { ...SESSION, status: 'pending' },
      headers: { 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '12' },
    });
    expect((await client.getSession('tok_1')).rateLimit).toEqual({ limit: 60, remaining: 12 });
  });

  it.each([
    [
      'a completed session without external_user_id',
      { token: 'tok_1', status: 'verified', result: RESULT_FIELDS },
      /"external_user_id"/,
    ],
    [
      'a completed session without a result',
      { ...SESSION, status: 'verified', result: null },
      /"confidence"/,
    ],
    [
      'a result with a mistyped field',
      { ...SESSION, status: 'verified', result: { ...RESULT_FIELDS, confidence: 'high' } },
      /"confidence" must be a finite number/,
    ],
    [
      'a result whose status contradicts the session',
      { ...SESSION, status: 'verified', result: { ...RESULT_FIELDS, status: 'failed' } },
      /"status" differs/,
    ],
    ['a body that is not an object', 'verified', /not a JSON object/],
  ])('throws ApiError for %s', async (_name, json, message) => {
    const client = await clientAnswering({ status: 200, json });
    const error = await client.getSession('tok_1').catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.serviceStatus).toBe(200);
    expect(error.body).toEqual(json);
    expect(error.message).toMatch(
      /^GET \/v1\/sessions\/:token answered 200 with an unexpected body/,
    );
    expect(error.message).toMatch(message);
  });

  it('throws ApiError for malformed JSON', async () => {
    const client = await clientAnswering({ status: 200, text: '{"status": "verified",' });
    const error = await client.getSession('tok_1').catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toMatch(/without a valid JSON body/);
  });

  it('throws ApiError with the status and body of a 404', async () => {
    const body = { success: false, error: 'session_not_found', message: 'No such session.' };
    const client = await clientAnswering({ status: 404, json: body });
    const error = await client.getSession('tok_missing').catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.serviceStatus).toBe(404);
    expect(error.body).toEqual(body);
    expect(server?.requests).toHaveLength(1);
  });
});
