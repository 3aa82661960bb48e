// Setup file of every test project when FACEVERIFY_TEST_BUSY_POOL is set (`pnpm test:deep` sets
// it, with UV_THREADPOOL_SIZE=1): libuv's thread pool is held for a few hundred milliseconds
// before each test, as a busy machine holds it. Work that runs there (Web Crypto's key
// derivation and sealing, DNS lookups, file reads) then ends late in real time, and a test
// that moves a test clock, or counts calls, before such work has ended fails here instead of
// now and then in CI. It found two: store_slow's alert named the lookup still waiting on the
// first webhook's keys, and the webhook round-trip counts started after a 50 ms sleep.
import { pbkdf2 } from 'node:crypto';
import { beforeEach } from 'vitest';

// About 0.1 s each on one thread of a 2-core machine.
const JOBS = 3;
const ITERATIONS = 100_000;

beforeEach(() => {
  for (let job = 0; job < JOBS; job++) pbkdf2('busy', 'pool', ITERATIONS, 32, 'sha256', () => {});
});
