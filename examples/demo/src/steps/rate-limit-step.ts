import { formatDuration } from '../format-duration.js';
import { VERIFY_LIMIT } from '../settings.js';
import type { Step } from './step.js';

const BURST = 70;
/** Sessions another instance of the backend starts with the same key, unseen by this process. */
const OTHER_INSTANCE = 5;
/** A call this much slower than a local round trip waited in the client's pacer. */
const PACED_AFTER_MS = 300;
const PROGRESS_EVERY = 10;

export const rateLimitStep: Step = {
  title: 'A burst past the rate limit',
  name: 'Burst past the rate limit, none failed',
  timeoutMs: 60_000,
  async run({ emulator, receiver, terminal }) {
    const perSecond = (VERIFY_LIMIT.limit * 1000) / VERIFY_LIMIT.windowMs;
    terminal.info(
      `the emulator allows ${perSecond} POST /v1/verify per second per key; the client paces itself to that (createSessionsPerMinute, paceWindowMs)`,
    );
    const refusedBefore = emulator.stats().rateLimited.verify;
    // The pacer is per process: calls from elsewhere with the same key are what it cannot see.
    await Promise.all(
      Array.from({ length: OTHER_INSTANCE }, (_, index) =>
        emulator.createSession({ externalUserId: `other-instance-${index + 1}` }),
      ),
    );
    terminal.info(
      `another instance sharing the API key has just started ${OTHER_INSTANCE} sessions this process cannot know about`,
    );
    terminal.info(`${BURST} × receiver.startVerification() at once:`);

    const started = performance.now();
    let done = 0;
    const calls = Array.from({ length: BURST }, async (_, index) => {
      const callStarted = performance.now();
      await receiver.startVerification({
        externalUserId: `burst-${String(index + 1).padStart(2, '0')}`,
      });
      done += 1;
      if (done % PROGRESS_EVERY === 0 || done === BURST) {
        terminal.line(
          `      ${String(done).padStart(2)}/${BURST} started after ${formatDuration(performance.now() - started)}`,
        );
      }
      return performance.now() - callStarted;
    });
    const results = await Promise.allSettled(calls);
    const elapsed = performance.now() - started;

    const durations = results.flatMap((result) =>
      result.status === 'fulfilled' ? [result.value] : [],
    );
    const failed = results.length - durations.length;
    const paced = durations.filter((ms) => ms >= PACED_AFTER_MS).length;
    const retried = emulator.stats().rateLimited.verify - refusedBefore;
    const longest = Math.max(0, ...durations);
    terminal.info(
      `${durations.length} started, ${failed} failed, in ${formatDuration(elapsed)}: ${paced} waited in the client's pacer (longest ${formatDuration(longest)}), ${retried} answered 429 and were retried after retry_after_ms`,
    );
    for (const result of results) {
      if (result.status === 'rejected') terminal.warn(String(result.reason));
    }
    return {
      passed: failed === 0 && paced + retried > 0,
      detail: `${durations.length}/${BURST} started; ${paced} paced, ${retried} retried after 429`,
    };
  },
};
