import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FLAGS } from '../src/cli/flags.js';
import {
  assertCliBuilt,
  type CliRun,
  printed,
  runCli,
  waitUntilRunning,
} from './support/cli-process.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const running: CliRun[] = [];
let receiver: WebhookReceiver | undefined;

beforeAll(() => {
  assertCliBuilt();
});

afterEach(async () => {
  for (const run of running.splice(0)) {
    if (run.child.exitCode === null && run.child.signalCode === null) {
      run.child.kill('SIGKILL');
      await run.exited;
    }
  }
  await receiver?.close();
  receiver = undefined;
});

function start(args: readonly string[], env: Record<string, string> = {}): CliRun {
  const run = runCli(args, env);
  running.push(run);
  return run;
}

describe('faceverify-emulator CLI', () => {
  it('--help documents every flag and its environment variable, and exits 0', async () => {
    const run = start(['--help']);
    expect(await run.exited).toBe(0);
    const help = run.stdout();
    for (const flag of FLAGS) {
      expect(help).toContain(`--${flag.name}`);
      if (flag.env) expect(help).toContain(flag.env);
    }
    for (const required of [
      '--port',
      '--host',
      '--callback-url',
      '--api-key',
      '--signing-secret',
      '--session-ttl',
      '--image-url-ttl',
      '--verify-limit',
      '--complete-limit',
      '--drop-webhooks',
      '--duplicate-webhooks',
      '--corrupt-webhooks',
      '--delay-webhooks-ms',
      '--poll-5xx',
      '--poll-429',
      '--seed',
      '/__emulator/faults',
      '/__emulator/stats',
      '/__emulator/settings',
    ]) {
      expect(help).toContain(required);
    }
  });

  it('--version prints the version', async () => {
    const run = start(['--version']);
    expect(await run.exited).toBe(0);
    expect(run.stdout().trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('prints what to copy, serves with it, and exits 0 on SIGTERM', async () => {
    receiver = await startWebhookReceiver({ secret: 'whsec_cli_secret' });
    const run = start([
      '--port',
      '0',
      '--api-key',
      'fv_test_cli_key',
      '--signing-secret=whsec_cli_secret',
      '--callback-url',
      receiver.url,
    ]);
    const output = await waitUntilRunning(run);
    const baseUrl = printed(output, 'Base URL');
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(printed(output, 'API key')).toBe('fv_test_cli_key');
    expect(printed(output, 'Signing secret')).toBe('whsec_cli_secret');
    expect(printed(output, 'Callback URL')).toBe(receiver.url);
    expect(output).toContain(`FACEVERIFY_BASE_URL=${baseUrl}`);
    expect(output).toContain('FACEVERIFY_API_KEY=fv_test_cli_key');
    expect(output).toContain('FACEVERIFY_WEBHOOK_SECRET=whsec_cli_secret');
    expect(output).toContain('FACEVERIFY_POLL_SCHEDULE_MS=5000,10000,30000');

    const created = await fetch(`${baseUrl}/v1/verify`, {
      method: 'POST',
      headers: { authorization: 'Bearer fv_test_cli_key', 'content-type': 'application/json' },
      body: JSON.stringify({ external_user_id: 'cli-user' }),
    });
    expect(created.status).toBe(201);
    const { token } = (await created.json()) as { token: string };
    const completed = await fetch(`${baseUrl}/v1/sessions/${token}/complete`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ outcome: 'verified' }),
    });
    expect(completed.status).toBe(200);
    const [webhook] = await receiver.waitFor(1);
    expect(webhook?.verified).toBe(true);

    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toContain('session created for "cli-user"');
  });

  it('exits 0 on SIGINT', async () => {
    const run = start(['--port', '0', '--quiet']);
    await waitUntilRunning(run);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
  });

  it('generates a key and a secret when none is given', async () => {
    const run = start(['--port', '0']);
    const output = await waitUntilRunning(run);
    expect(printed(output, 'API key')).toMatch(/^fv_test_[0-9a-f]{32}$/);
    expect(printed(output, 'Signing secret')).toMatch(/^whsec_[0-9a-f]{48}$/);
    expect(printed(output, 'Callback URL')).toMatch(/^not set/);
  });

  it('reads its settings from the environment, and flags win over it', async () => {
    const run = start(['--drop-webhooks', 'next:2', '--poll-5xx', '--poll-5xx-status', '502'], {
      FACEVERIFY_EMULATOR_PORT: '0',
      FACEVERIFY_EMULATOR_API_KEYS: 'fv_test_env_one,fv_test_env_two',
      FACEVERIFY_EMULATOR_DROP_WEBHOOKS: '0.5',
      FACEVERIFY_EMULATOR_POLL_429: 'always',
      FACEVERIFY_EMULATOR_POLL_429_RETRY_AFTER_MS: '1500',
      FACEVERIFY_EMULATOR_DELAY_WEBHOOKS_MS: '250',
      FACEVERIFY_EMULATOR_QUIET: 'true',
    });
    const output = await waitUntilRunning(run);
    expect(printed(output, 'API key 1')).toBe('fv_test_env_one');
    expect(printed(output, 'API key 2')).toBe('fv_test_env_two');
    const faults = await fetch(`${printed(output, 'Base URL')}/__emulator/faults`);
    expect(await faults.json()).toEqual({
      dropWebhooks: { next: 2, probability: 0 },
      delayWebhooks: { next: 0, probability: 1, ms: 250 },
      poll5xx: { next: 0, probability: 1, status: 502 },
      poll429: { next: 0, probability: 1, retryAfterMs: 1500 },
    });
  });

  it.each([
    [['--no-such-flag'], /Unknown flag --no-such-flag/],
    [['--port'], /--port needs a value/],
    [['--port', 'eighty'], /--port must be a whole number/],
    [['--drop-webhooks', '3'], /--drop-webhooks takes/],
    [['--session-ttl', 'soon'], /--session-ttl must be a duration/],
    [['--poll-5xx-status', '502'], /--poll-5xx-status needs --poll-5xx/],
    [['--callback-url', 'javascript:alert(1)'], /callbackUrl must be an absolute http/],
    [['stray'], /Unexpected argument "stray"/],
  ])('refuses %j with exit status 2 and says why', async (args, message) => {
    const run = start(args);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toMatch(message);
    expect(run.stderr()).toContain('--help');
  });

  it('exits 1 when the port is taken, and says how to pick another', async () => {
    const first = start(['--port', '0', '--quiet']);
    const port = Number(new URL(printed(await waitUntilRunning(first), 'Base URL')).port);
    const second = start(['--port', String(port)]);
    expect(await second.exited).toBe(1);
    const stderr = second.stderr();
    expect(stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
    expect(stderr).toContain(`--port ${port + 1}`);
    expect(stderr).toContain('--port 0');
  });
});
