#!/usr/bin/env node
import { ConfigurationError } from '@faceverify/core';
import { renderBanner } from './cli/banner.js';
import { cliRequest } from './cli/cli-options.js';
import { CliUsageError } from './cli/cli-usage-error.js';
import { DEFAULT_CLI_PORT } from './cli/flags.js';
import { renderHelp } from './cli/help.js';
import { parseArgs } from './cli/parse-args.js';
import { startFailureMessage } from './cli/start-failure.js';
import type { EmulatorLogger } from './logger.js';
import { isLoopbackHost } from './options.js';
import { startEmulator } from './start-emulator.js';
import { EMULATOR_VERSION } from './version.js';

const USAGE_ERROR_EXIT = 2;

function timestamp(): string {
  return new Date().toISOString().slice(11, 19);
}

const consoleLogger: EmulatorLogger = {
  info: (message) => console.log(`${timestamp()} ${message}`),
  warn: (message) => console.error(`${timestamp()} ${message}`),
};

function failUsage(message: string): never {
  console.error(`faceverify-emulator: ${message}\nRun faceverify-emulator --help for usage.`);
  process.exit(USAGE_ERROR_EXIT);
}

async function main(): Promise<void> {
  let request: ReturnType<typeof cliRequest>;
  try {
    request = cliRequest(parseArgs(process.argv.slice(2), process.env));
  } catch (error) {
    if (error instanceof CliUsageError) failUsage(error.message);
    throw error;
  }
  if (request.help) {
    process.stdout.write(renderHelp());
    return;
  }
  if (request.version) {
    console.log(EMULATOR_VERSION);
    return;
  }

  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  try {
    emulator = await startEmulator({
      ...request.options,
      logger: request.quiet ? undefined : consoleLogger,
    });
  } catch (error) {
    if (error instanceof ConfigurationError) failUsage(error.message);
    const { host = '127.0.0.1', port = DEFAULT_CLI_PORT } = request.options;
    console.error(startFailureMessage(error, host, port));
    process.exit(1);
  }
  // Handlers first: the banner tells a supervisor (or a test) that signals are handled.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    // A second signal while closing means "now".
    if (stopping) process.exit(1);
    stopping = true;
    console.log(`\n${signal}: stopping.`);
    emulator.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`faceverify-emulator: error while stopping: ${String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  process.stdout.write(renderBanner(emulator));
  // Without a logger (--quiet) startEmulator cannot warn; this warning is never silenced.
  if (
    request.quiet &&
    emulator.controlToken !== null &&
    !isLoopbackHost(request.options.host ?? '127.0.0.1')
  ) {
    console.error(
      'Warning: the emulator listens beyond this machine; its /__emulator control endpoints ' +
        'require the control token printed above.',
    );
  }
}

await main();
