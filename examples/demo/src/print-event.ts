import { inspect } from 'node:util';
import type { VerificationCompletedEvent } from '@faceverify/core';
import { shortToken, withoutQuery } from './redaction.js';
import type { Terminal } from './terminal.js';

/** Prints an event as a handler receives it, with its token and signed image link shortened. */
export function printEvent(terminal: Terminal, event: VerificationCompletedEvent): void {
  const shown = {
    ...event,
    ...(event.sessionToken ? { sessionToken: shortToken(event.sessionToken) } : {}),
    data: { ...event.data, frontImageUrl: withoutQuery(event.data.frontImageUrl) },
  };
  const text = inspect(shown, { depth: 4, colors: terminal.color, breakLength: 88 });
  for (const line of text.split('\n')) terminal.line(`      ${line}`);
}
