import { expect, it } from 'vitest';
import { notWaitingBecause } from '../src/options.js';

// The last line used to say "CI is set or there is no terminal input" when CI was unset.
it.each([
  [{ CI: 'true' }, true, 'CI is set'],
  [{ CI: '1' }, false, 'CI is set'],
  [{}, false, 'there is no terminal input'],
  [{ CI: 'false' }, false, 'there is no terminal input'],
  [{}, true, undefined],
])('CI=%j, stdin a terminal: %s → not waiting because %s', (env, tty, reason) => {
  expect(notWaitingBecause(env, tty)).toBe(reason);
});
