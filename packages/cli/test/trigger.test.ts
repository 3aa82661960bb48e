import { afterEach, describe, expect, it } from 'vitest';
import { EXIT, runCli } from '../src/index.js';
import { capturingIO, startReceiver, type TestReceiver } from './support.js';

const SECRET = 'whsec_cli_trigger_test_secret_0123';
const receivers: TestReceiver[] = [];
afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close();
});

async function receiverWith(options: Parameters<typeof startReceiver>[0] = {}) {
  const receiver = await startReceiver({ secret: SECRET, ...options });
  receivers.push(receiver);
  return receiver;
}

describe('faceverify trigger', () => {
  it('sends a signed verification.completed that the handler receives, and exits 0', async () => {
    const receiver = await receiverWith();
    const run = capturingIO({ FACEVERIFY_WEBHOOK_SECRET: SECRET });
    const code = await runCli(['trigger', '--url', receiver.url, '--user', 'alice'], run.io);
    expect(code, run.all()).toBe(EXIT.ok);
    expect(receiver.delivered).toMatchObject([
      { event: 'verification.completed', status: 'verified', external_user_id: 'alice' },
    ]);
    expect(run.out.join('\n')).toContain('✔ 200 {"received":true}');
  });

  it('--status failed sends a failed result with a reason', async () => {
    const receiver = await receiverWith();
    const run = capturingIO({ FACEVERIFY_WEBHOOK_SECRET: SECRET });
    expect(await runCli(['trigger', '--url', receiver.url, '--status', 'failed'], run.io)).toBe(
      EXIT.ok,
    );
    expect(receiver.delivered).toMatchObject([
      { status: 'failed', reason: 'liveness_check_failed', livenessPassed: false },
    ]);
  });

  it('explains 401 signature_invalid when the secrets differ, exits 1, and prints no secret', async () => {
    const receiver = await receiverWith();
    const other = 'whsec_not_the_receivers_secret_987';
    const run = capturingIO({ FACEVERIFY_WEBHOOK_SECRET: other });
    expect(await runCli(['trigger', '--url', receiver.url], run.io)).toBe(EXIT.failed);
    expect(run.all()).toContain('✖ 401');
    expect(run.all()).toContain("signature_invalid: The receiver's FACEVERIFY_WEBHOOK_SECRET");
    expect(run.all()).not.toContain(other);
    expect(run.all()).not.toContain(SECRET);
    expect(receiver.delivered).toEqual([]);
  });

  it('explains 500 raw_body_unavailable when express.json() is mounted first', async () => {
    const receiver = await receiverWith({ jsonFirst: true });
    const run = capturingIO({ FACEVERIFY_WEBHOOK_SECRET: SECRET });
    expect(await runCli(['trigger', '--url', receiver.url], run.io)).toBe(EXIT.failed);
    expect(run.all()).toContain('raw_body_unavailable: A body parser read the body');
  });

  it('explains a 404: nothing mounted at the path', async () => {
    const receiver = await receiverWith();
    const run = capturingIO({ FACEVERIFY_WEBHOOK_SECRET: SECRET });
    const wrongPath = receiver.url.replace('/webhooks/verification', '/webhook');
    expect(await runCli(['trigger', '--url', wrongPath], run.io)).toBe(EXIT.failed);
    expect(run.all()).toContain('✖ 404');
    expect(run.all()).toContain('Nothing is mounted at this path');
  });

  it('says when nothing answers, and exits 1', async () => {
    const receiver = await receiverWith();
    await receiver.close();
    receivers.splice(receivers.indexOf(receiver), 1);
    const run = capturingIO({ FACEVERIFY_WEBHOOK_SECRET: SECRET });
    expect(await runCli(['trigger', '--url', receiver.url], run.io)).toBe(EXIT.failed);
    expect(run.all()).toContain('✖ no answer: ECONNREFUSED');
  });

  it('refuses to run without FACEVERIFY_WEBHOOK_SECRET, naming it', async () => {
    const run = capturingIO({});
    expect(await runCli(['trigger', '--url', 'http://127.0.0.1:9/x'], run.io)).toBe(EXIT.failed);
    expect(run.err.join('\n')).toContain('FACEVERIFY_WEBHOOK_SECRET is not set');
  });

  it.each([
    [['trigger'], '--url is required'],
    [
      ['trigger', '--url', 'http://127.0.0.1:9/x', '--status', 'maybe'],
      '--status must be verified or failed',
    ],
    [['trigger', '--url', 'http://127.0.0.1:9/x', '--colour'], "Unknown option '--colour'"],
    [['triger'], 'unknown command "triger"'],
  ])(
    'exits 2 with the reason and one line pointing to --help, not the usage: %j',
    async (args, reason) => {
      const run = capturingIO({ FACEVERIFY_WEBHOOK_SECRET: SECRET });
      expect(await runCli(args, run.io)).toBe(EXIT.usage);
      const command = args[0] === 'trigger' ? ' trigger' : '';
      expect(run.err).toEqual([
        expect.stringContaining(reason),
        `Run \`faceverify${command} --help\` for the usage.`,
      ]);
      expect(run.out).toEqual([]);
    },
  );

  it('without a command, prints the usage on stderr and exits 2', async () => {
    const run = capturingIO({});
    expect(await runCli([], run.io)).toBe(EXIT.usage);
    expect(run.err.join('\n')).toContain('usage: faceverify <command>');
  });

  it.each([['trigger'], ['doctor']])(
    '%s --help documents the command and exits 0',
    async (name) => {
      const run = capturingIO({});
      expect(await runCli([name, '--help'], run.io)).toBe(EXIT.ok);
      expect(run.out.join('\n')).toContain(`usage: faceverify ${name}`);
      expect(run.out.join('\n')).toContain('exit codes: 0');
    },
  );
});
