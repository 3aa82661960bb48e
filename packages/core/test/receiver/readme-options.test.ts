import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_OPTIONS } from '../../src/client/resolve-options.js';
import { RECEIVER_OPTIONS } from '../../src/receiver/options.js';

// Errors, `faceverify trigger` and docs/troubleshooting.md point readers to these tables: an
// option missing from one is an option a reader cannot look up.
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The options a README section's table lists, in its first column. */
function tableOptions(heading: string): string[] {
  const section = readme.slice(readme.indexOf(heading));
  const table = /\n(\|[^\n]*\n)+/.exec(section)?.[0] ?? '';
  return [...table.matchAll(/^\| `(\w+)`/gm)].map((match) => match[1] ?? '');
}

describe('packages/core/README.md lists every option', () => {
  it.each([
    ['### `createReceiver(options?)`', RECEIVER_OPTIONS],
    ['### `createClient(options?)`', CLIENT_OPTIONS],
  ])('in the table under %s', (heading, options) => {
    expect(tableOptions(heading).sort()).toEqual(Object.keys(options).sort());
  });
});
