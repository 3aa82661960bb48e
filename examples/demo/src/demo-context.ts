import type { Receiver } from '@faceverify/core';
import type { Emulator } from '@faceverify/emulator';
import type { Browser } from 'playwright-core';
import type { EventLog } from './event-log.js';
import type { Terminal } from './terminal.js';

/** The session step 1 completed on the hosted page, whose webhook step 2 looks at. */
export interface HostedSession {
  userId: string;
  token: string;
  /** Webhooks the emulator had delivered before this session completed. */
  deliveredBefore: number;
}

/** Everything the steps work with. */
export interface DemoContext {
  emulator: Emulator;
  /** The example app's Receiver, configured for the emulator. */
  receiver: Receiver;
  /** The example app's base URL. */
  appUrl: string;
  events: EventLog;
  browser: Browser | undefined;
  terminal: Terminal;
  hostedSession?: HostedSession;
}
