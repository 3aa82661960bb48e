import { ConfigurationError } from '@faceverify/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../src/index.js';
import { rawRequest } from './support/raw-request.js';

const running: Emulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
});

async function start(options: Parameters<typeof startEmulator>[0] = {}) {
  const warnings: string[] = [];
  const emulator = await startEmulator({
    ...options,
    logger: { info: () => undefined, warn: (message) => warnings.push(message) },
  });
  running.push(emulator);
  return { emulator, warnings, direct: `http://127.0.0.1:${emulator.port}` };
}

const settingsBody = (callbackUrl: string) => JSON.stringify({ callbackUrl });

describe('the control endpoint beyond loopback', () => {
  it('refuses PUT /__emulator/settings without the control token, and takes it with the token', async () => {
    const { emulator, direct } = await start({ host: '0.0.0.0' });
    expect(emulator.controlToken).toMatch(/^fvctl_[0-9a-f]{48}$/);
    const put = (headers: Record<string, string>) =>
      rawRequest(`${direct}/__emulator/settings`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', ...headers },
        chunks: [settingsBody('http://attacker.example/hook')],
      });
    for (const headers of [{}, { authorization: 'Bearer fvctl_wrong_token_of_some_length' }]) {
      const refused = await put(headers);
      expect(refused.status).toBe(401);
      expect(refused.json().error).toBe('control_token_required');
      expect(refused.body).not.toContain(emulator.controlToken);
    }
    expect(emulator.callbackUrl).toBeNull();
    const stats = await rawRequest(`${direct}/__emulator/stats`, { method: 'GET' });
    expect(stats.status).toBe(401);
    const accepted = await put({ authorization: `Bearer ${emulator.controlToken}` });
    expect(accepted.status).toBe(200);
    expect(emulator.callbackUrl).toBe('http://attacker.example/hook');
    expect((await rawRequest(`${direct}/__emulator/health`, { method: 'GET' })).status).toBe(200);
  });

  it('warns through its logger when listening beyond loopback, never showing the token', async () => {
    const { emulator, warnings } = await start({ host: '0.0.0.0' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/beyond this machine.*control token/s);
    expect(warnings[0]).not.toContain(emulator.controlToken);
    const quiet = await start();
    expect(quiet.warnings).toEqual([]);
    expect(quiet.emulator.controlToken).toBeNull();
  });

  it('requires a control token given on loopback too', async () => {
    const controlToken = 'fvctl_given_by_the_test_0001';
    const { emulator, direct } = await start({ controlToken });
    expect(emulator.controlToken).toBe(controlToken);
    expect((await rawRequest(`${direct}/__emulator/faults`, { method: 'GET' })).status).toBe(401);
    const authorized = await rawRequest(`${direct}/__emulator/faults`, {
      method: 'GET',
      headers: { authorization: `Bearer ${controlToken}` },
    });
    expect(authorized.status).toBe(200);
  });
});

describe('Host header checks (DNS rebinding)', () => {
  it.each(['/__emulator/settings', '/v1/verify', '/verify/some-token', '/__emulator/health'])(
    'refuses %s under a foreign Host with 421 and a JSON error',
    async (path) => {
      const { direct, emulator } = await start();
      const response = await rawRequest(`${direct}${path}`, {
        method: path === '/v1/verify' ? 'POST' : 'GET',
        headers: { host: `rebind.attacker.example:${emulator.port}` },
      });
      expect(response.status).toBe(421);
      expect(response.json().error).toBe('misdirected_request');
      expect(response.json().message).toMatch(/allowedHosts/);
    },
  );

  it('refuses a loopback name on another port, and a missing port', async () => {
    const { direct, emulator } = await start();
    for (const host of [`localhost:${emulator.port + 1}`, 'localhost', '127.0.0.1']) {
      const response = await rawRequest(`${direct}/__emulator/settings`, {
        method: 'GET',
        headers: { host },
      });
      expect(response.status, host).toBe(421);
    }
  });

  it('answers localhost, 127.0.0.1 and [::1] with its port, the publicUrl host and allowedHosts', async () => {
    const { direct, emulator } = await start({
      publicUrl: 'https://emulator.example.test',
      allowedHosts: ['emulator', 'proxy.internal:8080'],
    });
    const hosts = [
      `localhost:${emulator.port}`,
      `127.0.0.1:${emulator.port}`,
      `[::1]:${emulator.port}`,
      'emulator.example.test',
      `emulator:${emulator.port}`,
      'proxy.internal:8080',
    ];
    for (const host of hosts) {
      const response = await rawRequest(`${direct}/__emulator/settings`, {
        method: 'GET',
        headers: { host },
      });
      expect(response.status, host).toBe(200);
    }
  });
});

describe('link-local callback URLs', () => {
  const linkLocal = [
    'http://169.254.169.254/latest/meta-data/',
    'http://169.254.1.1:8080/hook',
    'http://[fe80::1]/hook',
    'http://[::ffff:169.254.169.254]/hook',
    'http://2852039166/hook',
  ];

  it.each(linkLocal)('PUT /__emulator/settings refuses %s with 400', async (callbackUrl) => {
    const { direct, emulator } = await start();
    const response = await rawRequest(`${direct}/__emulator/settings`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      chunks: [settingsBody(callbackUrl)],
    });
    expect(response.status).toBe(400);
    expect(response.json().message).toMatch(/link-local/);
    expect(emulator.callbackUrl).toBeNull();
  });

  it.each(linkLocal)('startEmulator and setCallbackUrl refuse %s', async (callbackUrl) => {
    await expect(startEmulator({ callbackUrl })).rejects.toBeInstanceOf(ConfigurationError);
    const { emulator } = await start();
    expect(() => emulator.setCallbackUrl(callbackUrl)).toThrow(/link-local/);
  });

  it('still accepts loopback and private receivers', async () => {
    const { emulator } = await start();
    for (const url of [
      'http://127.0.0.1:3000/hook',
      'http://10.0.0.7/hook',
      'http://[::1]:3000/',
    ]) {
      emulator.setCallbackUrl(url);
      expect(emulator.callbackUrl).toBe(url);
    }
  });
});
