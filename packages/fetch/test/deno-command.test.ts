import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { build } from 'esbuild';
import { afterAll, expect, it } from 'vitest';

// Issue 19, item 5: the README's Deno app, run with the README's own command. Before, the
// Receiver read FACEVERIFY_API_KEY, which the command did not grant, and Deno stopped the app
// with NotCapable. An optional variable the command does not grant
// (FACEVERIFY_POLL_SCHEDULE_MS) is set too: reading it must not stop the app either.

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
// Deno comes from the npm registry into the cache the portable runtime tests use.
const RUNTIMES = join(ROOT, 'node_modules', '.cache', 'faceverify-runtimes');
const PROVISION = join(ROOT, 'scripts', 'runtimes', 'provision.mjs');

interface Provision {
  ensureInstalled(options: {
    dir: string;
    spec: string;
    candidates: (dir: string) => string[];
  }): Promise<{ bin: string }>;
  binCandidates(dir: string, name: string): string[];
}

async function denoBinary(): Promise<string> {
  const { ensureInstalled, binCandidates } = (await import(PROVISION)) as Provision;
  const deno = await ensureInstalled({
    dir: join(RUNTIMES, 'deno'),
    spec: 'deno@2',
    candidates: (dir) => binCandidates(dir, 'deno'),
  });
  return deno.bin;
}
const SECRET = 'whsec_deno_command_0123456789';
const dir = mkdtempSync(join(tmpdir(), 'faceverify-deno-'));
let deno: ChildProcess | undefined;

afterAll(() => {
  deno?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function denoSection(): { code: string; command: string[] } {
  const section = README.slice(README.indexOf('## Deno'));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  const command = /`(deno run [^`]*)`/.exec(section)?.[1];
  if (!code || !command) throw new Error('packages/fetch/README.md has no Deno app and command');
  return { code, command: command.split(/\s+/) };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

it('the README’s Deno app runs with the README’s command and takes a signed webhook', async () => {
  const { code, command } = denoSection();
  expect(command.slice(0, 2)).toEqual(['deno', 'run']);
  // The published package, as Deno would load it from npm: the built one, bundled.
  await build({
    entryPoints: [fileURLToPath(new URL('../dist/index.js', import.meta.url))],
    bundle: true,
    format: 'esm',
    platform: 'node',
    conditions: ['deno', 'node'],
    outfile: join(dir, 'faceverify-fetch.js'),
    logLevel: 'silent',
  });
  const port = await freePort();
  writeFileSync(
    join(dir, 'main.ts'),
    code
      .replace("'npm:@faceverify/fetch'", "'./faceverify-fetch.js'")
      .replace('port: 3000', `port: ${port}, hostname: '127.0.0.1'`),
  );
  const bin = await denoBinary();
  const output: string[] = [];
  const started = new Promise<void>((resolve, reject) => {
    deno = spawn(bin, command.slice(1), {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DENO_DIR: join(RUNTIMES, 'deno-dir'),
        DENO_NO_UPDATE_CHECK: '1',
        FACEVERIFY_WEBHOOK_SECRET: SECRET,
        FACEVERIFY_POLL_SCHEDULE_MS: '5000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const take = (chunk: Buffer) => {
      output.push(chunk.toString());
      if (output.join('').includes('Listening on')) resolve();
    };
    deno.stdout?.on('data', take);
    deno.stderr?.on('data', take);
    deno.on('exit', (exitCode) =>
      reject(new Error(`deno exited with ${exitCode}:\n${output.join('')}`)),
    );
  });
  await started;
  const delivery = await signedDelivery(fixturePayload({ external_user_id: 'deno_user' }), {
    secret: SECRET,
  });
  const response = await fetch(`http://127.0.0.1:${port}/webhooks/verification`, {
    method: 'POST',
    headers: delivery.headers,
    body: delivery.text,
  });
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({ received: true });
  while (!output.join('').includes('deno_user verified')) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(output.join('')).not.toContain('NotCapable');
}, 120_000);
