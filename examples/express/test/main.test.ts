import { fileURLToPath } from 'node:url';
import { expectStartWithoutEmulator } from '@faceverify/test-support';
import { it } from 'vitest';

it('pnpm start without the emulator running: says what failed and how to start it, exits 1 without a stack trace', () =>
  expectStartWithoutEmulator(fileURLToPath(new URL('..', import.meta.url))));
