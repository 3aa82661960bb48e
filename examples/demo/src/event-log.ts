import type { VerificationCompletedEvent } from '@faceverify/core';

interface Waiter {
  match: (event: VerificationCompletedEvent) => boolean;
  resolve: (event: VerificationCompletedEvent) => void;
}

/** Every `verification.completed` the demo's receiver delivered, and a way to wait for one. */
export class EventLog {
  private readonly events: VerificationCompletedEvent[] = [];
  private readonly waiters = new Set<Waiter>();

  /** The handler to register on the Receiver. */
  readonly record = (event: VerificationCompletedEvent): void => {
    this.events.push(event);
    for (const waiter of this.waiters) {
      if (waiter.match(event)) {
        this.waiters.delete(waiter);
        waiter.resolve(event);
      }
    }
  };

  forUser(userId: string): VerificationCompletedEvent[] {
    return this.events.filter((event) => event.data.external_user_id === userId);
  }

  /** The first event of `userId`, already delivered or still to come; rejects after `timeoutMs`. */
  next(userId: string, timeoutMs: number): Promise<VerificationCompletedEvent> {
    const match = (event: VerificationCompletedEvent) => event.data.external_user_id === userId;
    const delivered = this.events.find(match);
    if (delivered) return Promise.resolve(delivered);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        match,
        resolve: (event) => {
          clearTimeout(timer);
          resolve(event);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`no verification.completed for ${userId} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }
}
