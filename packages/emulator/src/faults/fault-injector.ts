import type { RandomSource } from '../random.js';
import {
  type ActiveFaults,
  type ActiveSchedule,
  type FaultSettings,
  normalizeFaultSettings,
  type ServerErrorStatus,
} from './fault-settings.js';

/** What happens to one webhook. */
export interface WebhookFaultPlan {
  drop: boolean;
  delayMs: number;
  duplicate: boolean;
  corrupt: boolean;
}

/** A failure to answer one session poll with, instead of the session. */
export type PollFault =
  | { kind: 'server_error'; status: ServerErrorStatus }
  | { kind: 'rate_limited'; retryAfterMs: number };

/** What happens to one `POST /v1/verify`: an error answered (the session created or not), a delay. */
export interface VerifyFaultPlan {
  error: { status: ServerErrorStatus; created: boolean } | null;
  delayMs: number;
}

/** Whether a schedule can still hit: a `next` count used up with no probability cannot. */
function inForce<T extends ActiveSchedule>(schedule: T | null): schedule is T {
  return schedule !== null && (schedule.next > 0 || schedule.probability > 0);
}

/** Decides, event by event, which configured faults hit. */
export class FaultInjector {
  private active: ActiveFaults;

  constructor(
    private readonly random: RandomSource,
    settings: FaultSettings,
  ) {
    this.active = normalizeFaultSettings(settings);
  }

  /** Replaces every fault setting. @throws ConfigurationError on an invalid setting. */
  set(settings: FaultSettings): void {
    this.active = normalizeFaultSettings(settings);
  }

  /** The faults now on, with what is left of their `next` counts; it can be set back as is. */
  current(): FaultSettings {
    const settings: FaultSettings = {};
    const {
      dropWebhooks,
      duplicateWebhooks,
      corruptWebhooks,
      delayWebhooks,
      poll5xx,
      poll429,
      verify5xx,
      delayVerify,
    } = this.active;
    if (inForce(dropWebhooks)) settings.dropWebhooks = { ...dropWebhooks };
    if (inForce(duplicateWebhooks)) settings.duplicateWebhooks = { ...duplicateWebhooks };
    if (inForce(corruptWebhooks)) settings.corruptWebhooks = { ...corruptWebhooks };
    if (inForce(delayWebhooks)) settings.delayWebhooks = { ...delayWebhooks };
    if (inForce(poll5xx)) settings.poll5xx = { ...poll5xx };
    if (inForce(poll429)) settings.poll429 = { ...poll429 };
    if (inForce(verify5xx)) settings.verify5xx = { ...verify5xx };
    if (inForce(delayVerify)) settings.delayVerify = { ...delayVerify };
    return settings;
  }

  /**
   * The faults for the next webhook. A dropped webhook is not also delayed, duplicated or
   * corrupted, and does not use up those faults' `next` counts.
   */
  planWebhook(): WebhookFaultPlan {
    if (this.hits(this.active.dropWebhooks)) {
      return { drop: true, delayMs: 0, duplicate: false, corrupt: false };
    }
    const delay = this.active.delayWebhooks;
    return {
      drop: false,
      delayMs: delay && this.hits(delay) ? delay.ms : 0,
      duplicate: this.hits(this.active.duplicateWebhooks),
      corrupt: this.hits(this.active.corruptWebhooks),
    };
  }

  /** The failure for the next session poll, or `null`; a server error takes precedence. */
  nextPollFault(): PollFault | null {
    const { poll5xx, poll429 } = this.active;
    if (poll5xx && this.hits(poll5xx)) return { kind: 'server_error', status: poll5xx.status };
    if (poll429 && this.hits(poll429)) {
      return { kind: 'rate_limited', retryAfterMs: poll429.retryAfterMs };
    }
    return null;
  }

  /** The faults for the next `POST /v1/verify`. */
  planVerify(): VerifyFaultPlan {
    const { verify5xx, delayVerify } = this.active;
    return {
      error:
        verify5xx && this.hits(verify5xx)
          ? { status: verify5xx.status, created: verify5xx.created }
          : null,
      delayMs: delayVerify && this.hits(delayVerify) ? delayVerify.ms : 0,
    };
  }

  private hits(schedule: ActiveSchedule | null): boolean {
    if (!schedule) return false;
    if (schedule.next > 0) {
      schedule.next -= 1;
      return true;
    }
    // Certain and impossible outcomes draw nothing, so they do not shift a seeded sequence.
    if (schedule.probability >= 1) return true;
    return schedule.probability > 0 && this.random.next() < schedule.probability;
  }
}
