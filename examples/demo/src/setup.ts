import { createReceiver, MemoryStore } from '@faceverify/core';
import { startEmulator } from '@faceverify/emulator';
import { launchChromium } from './browser.js';
import type { DemoContext } from './demo-context.js';
import { EventLog } from './event-log.js';
import type { ExampleServer, Framework } from './frameworks.js';
import { narratedLogger } from './library-log.js';
import { POLL_SCHEDULE_MS, SWEEP_INTERVAL_MS, VERIFY_LIMIT } from './settings.js';
import type { Terminal } from './terminal.js';

export interface DemoSetup {
  context: DemoContext;
  server: ExampleServer;
  browserDescription: string;
  /** Stops the app (and its polling), the browser and the emulator. */
  close(): Promise<void>;
}

/**
 * Starts the emulator, the example app with a Receiver pointed at it (MemoryStore, fast
 * polling, pacing matched to the emulator's limit, its log lines part of the narration) and,
 * when there is one, headless Chromium.
 */
export async function startDemo(framework: Framework, terminal: Terminal): Promise<DemoSetup> {
  const emulator = await startEmulator({ rateLimits: { verify: VERIFY_LIMIT } });
  const events = new EventLog();
  const receiver = createReceiver({
    secret: emulator.signingSecret,
    client: {
      apiKey: emulator.apiKey,
      baseUrl: emulator.url,
      createSessionsPerMinute: VERIFY_LIMIT.limit,
      paceWindowMs: VERIFY_LIMIT.windowMs,
    },
    store: new MemoryStore(),
    pollScheduleMs: POLL_SCHEDULE_MS,
    sweepIntervalMs: SWEEP_INTERVAL_MS,
    logger: narratedLogger(terminal),
  });
  receiver.on('verification.completed', events.record);
  receiver.on('error', (error, { stage }) => {
    terminal.warn(`receiver error (${stage}): ${error instanceof Error ? error.message : error}`);
  });

  let server: ExampleServer;
  try {
    server = await framework.start({ port: 0, receiver });
  } catch (error) {
    await emulator.close();
    throw error;
  }
  emulator.setCallbackUrl(`${server.url}/webhooks/verification`);
  const launch = await launchChromium();

  return {
    context: {
      emulator,
      receiver,
      appUrl: server.url,
      events,
      browser: launch.browser,
      terminal,
    },
    server,
    browserDescription: launch.description,
    async close() {
      await server.close();
      await launch.browser?.close();
      await emulator.close();
    },
  };
}
