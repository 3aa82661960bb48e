import type { Receiver } from '@faceverify/core';
import { type Emulator, OUTCOMES } from '@faceverify/emulator';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts `sessions` verifications at a steady rate through `starter` (an API server sharing
 * the store), running each milestone (a kill, a restart) when its session number comes, and
 * completes each session at the service shortly after, cycling through every outcome.
 * Resolves once every completion call has returned, with the tokens started.
 */
export async function driveSessions(options: {
  sessions: number;
  ratePerSecond: number;
  starter: Pick<Receiver, 'startVerification'>;
  emulator: Emulator;
  milestones: Map<number, () => Promise<void>>;
  onCompleted: (token: string) => void;
}): Promise<string[]> {
  const started: string[] = [];
  const completions: Promise<unknown>[] = [];
  const interval = 1000 / options.ratePerSecond;
  const startAt = Date.now();
  for (let i = 0; i < options.sessions; i++) {
    await options.milestones.get(i)?.();
    const wait = startAt + i * interval - Date.now();
    if (wait > 0) await sleep(wait);
    let token: string | undefined;
    for (let attempt = 0; attempt < 50 && !token; attempt++) {
      try {
        token = (await options.starter.startVerification({ externalUserId: `soak_${i}` })).token;
      } catch {
        // The store is restarting: an API server would answer 503; retry.
        await sleep(200);
      }
    }
    if (!token) continue;
    started.push(token);
    const outcome = OUTCOMES[i % OUTCOMES.length]!;
    const sessionToken = token;
    completions.push(
      sleep(100).then(async () => {
        await options.emulator.completeSession(sessionToken, outcome);
        options.onCompleted(sessionToken);
      }),
    );
  }
  await Promise.all(completions);
  return started;
}
