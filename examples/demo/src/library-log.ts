import type { Logger } from '@faceverify/core';
import type { Terminal } from './terminal.js';

/**
 * The Receiver's logger in the demo: what the library logs (warnings and errors, as it does
 * by default to the console) becomes a labelled line of the narration, indented under the
 * step that caused it, instead of a raw console line between the demo's own.
 */
export function narratedLogger(terminal: Terminal): Logger {
  const write =
    (level: 'warn' | 'error') => (message: string, fields?: Record<string, unknown>) => {
      const detail = fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
      terminal.line(
        `  ${terminal.style('dim', '│')} ${terminal.style(level === 'error' ? 'red' : 'yellow', `faceverify logged (${level}):`)} ${message}${detail}`,
      );
    };
  return { warn: write('warn'), error: write('error') };
}
