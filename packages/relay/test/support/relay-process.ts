import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Emulator } from '@faceverify/emulator';

const BIN = fileURLToPath(new URL('../../bin/faceverify-relay.js', import.meta.url));

/** A relay started as a process by its command, as an operator starts it. */
export interface RelayProcess {
  child: ChildProcess;
  /** The internal API's address, from the line it prints once serving. */
  apiUrl: string;
  /** Where it receives webhooks. */
  webhookUrl: string;
  /** Everything it wrote, both streams, so far. */
  output(): string;
  /** Resolves with its exit code (or the signal that ended it). */
  exited: Promise<number | NodeJS.Signals>;
}

/** What a relay that failed to start wrote, and its exit code. */
export interface FailedStart {
  code: number | NodeJS.Signals;
  output: string;
}

function run(env: Record<string, string>): {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | NodeJS.Signals>;
} {
  // Only what is given, and PATH: no FACEVERIFY_* setting of the test's own environment.
  const child = spawn(process.execPath, [BIN], {
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    text += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    text += chunk;
  });
  const exited = new Promise<number | NodeJS.Signals>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? (signal as NodeJS.Signals))),
  );
  return { child, output: () => text, exited };
}

/** Starts `faceverify-relay` and resolves once it serves; rejects with its output if it exits. */
export async function startRelayProcess(env: Record<string, string>): Promise<RelayProcess> {
  const { child, output, exited } = run(env);
  const addresses = await new Promise<RegExpExecArray>((resolve, reject) => {
    const onData = () => {
      const match = /webhook at (\S+), internal API at (\S+),/.exec(output());
      if (match) {
        child.stdout?.off('data', onData);
        resolve(match);
      }
    };
    child.stdout?.on('data', onData);
    exited.then((code) => reject(new Error(`the relay exited (${code}):\n${output()}`)));
  });
  return {
    child,
    webhookUrl: (addresses[1] as string).replace('0.0.0.0', '127.0.0.1'),
    apiUrl: addresses[2] as string,
    output,
    exited,
  };
}

/** Runs `faceverify-relay` with a configuration it must refuse, until it exits. */
export async function failedStart(env: Record<string, string>): Promise<FailedStart> {
  const { output, exited } = run(env);
  const code = await exited;
  return { code, output: output() };
}

/** The settings every relay of the tests shares: the emulator's credentials, a token, loopback. */
export function relayEnv(
  emulator: Pick<Emulator, 'signingSecret' | 'apiKey' | 'url'>,
  token: string,
): Record<string, string> {
  return {
    FACEVERIFY_WEBHOOK_SECRET: emulator.signingSecret,
    FACEVERIFY_API_KEY: emulator.apiKey,
    FACEVERIFY_BASE_URL: emulator.url,
    FACEVERIFY_RELAY_TOKEN: token,
    FACEVERIFY_RELAY_WEBHOOK_HOST: '127.0.0.1',
    FACEVERIFY_RELAY_WEBHOOK_PORT: '0',
    FACEVERIFY_RELAY_API_PORT: '0',
  };
}
