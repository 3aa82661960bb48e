import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/base/errors.js';
import { createClient } from '../../src/client/index.js';
import {
  createdReply,
  type Reply,
  type ScriptedServer,
  startScriptedServer,
} from './scripted-server.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function clientAnswering(reply: Reply, apiKey = 'fv_test_create_session') {
  server = await startScriptedServer(() => reply);
  return createClient({ apiKey, baseUrl: server.url, maxRetries: 0 });
}

describe('createSession request', () => {
  it('posts the parameters as JSON with the bearer key, and reads the session', async () => {
    const client = await clientAnswering(createdReply('tok_abc'), 'fv_test_request_shape');
    const session = await client.createSession({
      externalUserId: 'user-1',
      redirectUrl: 'https://app.example.com/done',
      extra: { locale: 'fr', external_user_id: 'spoofed', redirect_url: 'https://evil.example' },
    });

    expect(session.token).toBe('tok_abc');
    expect(session.verifyUrl).toBe('https://verify.example.com/verify/tok_abc');
    expect(session.raw).toMatchObject({ token: 'tok_abc', status: 'pending' });

    const [request] = server?.requests ?? [];
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/v1/verify');
    expect(request?.headers.authorization).toBe('Bearer fv_test_request_shape');
    expect(request?.headers.accept).toBe('application/json');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['x-faceverify-client']).toBe('faceverify-core');
    // The named parameters win over `extra`.
    expect(JSON.parse(request?.body ?? '')).toEqual({
      locale: 'fr',
      external_user_id: 'user-1',
      redirect_url: 'https://app.example.com/done',
    });
  });

  it('leaves redirect_url out when none is given', async () => {
    const client = await clientAnswering(createdReply('tok_plain'));
    await client.createSession({ externalUserId: 'user-2' });
    expect(JSON.parse(server?.requests[0]?.body ?? '')).toEqual({ external_user_id: 'user-2' });
  });

  it('keeps the path of a base URL that has one', async () => {
    server = await startScriptedServer(() => createdReply('tok_prefixed'));
    const client = createClient({ apiKey: 'fv_test_prefix', baseUrl: `${server.url}/api/face/` });
    await client.createSession({ externalUserId: 'user-3' });
    expect(server.requests[0]?.url).toBe('/api/face/v1/verify');
  });
});

describe('createSession response, read tolerantly', () => {
  const verifyUrl = 'https://verify.example.com/verify/tok_in_url';

  it.each([
    ['token', { token: 'tok_a', verify_url: verifyUrl }, 'tok_a'],
    ['session_token', { session_token: 'tok_b', verify_url: verifyUrl }, 'tok_b'],
    ['sessionToken', { sessionToken: 'tok_c', verify_url: verifyUrl }, 'tok_c'],
    ['the last path segment of verify_url', { verify_url: verifyUrl }, 'tok_in_url'],
    [
      'an encoded path segment of verify_url',
      { verify_url: 'https://verify.example.com/s/tok%20d/' },
      'tok d',
    ],
    [
      'the token query parameter of verify_url',
      { verify_url: 'https://verify.example.com/verify?token=tok_e' },
      'tok_e',
    ],
  ])('takes the token from %s', async (_source, json, token) => {
    const client = await clientAnswering({ status: 201, json });
    const session = await client.createSession({ externalUserId: 'user-1' });
    expect(session.token).toBe(token);
  });

  it.each([
    ['no verify_url', { token: 'tok' }],
    ['a relative verify_url', { token: 'tok', verify_url: '/verify/tok' }],
    ['a javascript: verify_url', { token: 'tok', verify_url: 'javascript:alert(1)' }],
    ['no token anywhere', { verify_url: 'https://verify.example.com/' }],
    ['an array', [{ token: 'tok' }]],
  ])('throws ApiError for %s', async (_name, json) => {
    const client = await clientAnswering({ status: 201, json });
    const error = await client.createSession({ externalUserId: 'user-1' }).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.serviceStatus).toBe(201);
    expect(error.message).toMatch(/POST \/v1\/verify answered 201 with an unexpected body/);
  });

  it('throws ApiError for a body that is not JSON', async () => {
    const client = await clientAnswering({ status: 201, text: '<html>oops</html>' });
    const error = await client.createSession({ externalUserId: 'user-1' }).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toMatch(/without a valid JSON body/);
  });

  it('throws ApiError with the status, body and message of an error answer', async () => {
    const body = { success: false, error: 'invalid_request', message: 'external_user_id missing' };
    const client = await clientAnswering({ status: 400, json: body });
    const error = await client.createSession({ externalUserId: 'user-1' }).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe('api_error');
    expect(error.serviceStatus).toBe(400);
    expect(error.body).toEqual(body);
    expect(error.message).toBe('POST /v1/verify failed with status 400: external_user_id missing.');
  });
});
