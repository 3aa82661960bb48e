import { MemoryStore } from '@faceverify/core';
import type { Store } from '@faceverify/core/store';
import {
  type ClosedRecordListener,
  type StoreAlarmListener,
  StoreAlarmListeners,
} from '@faceverify/core/store';
import type { Scheduler } from './scheduler.js';

type Method = Exclude<keyof Store, 'onAlarm' | 'watchClosed' | 'readClock'>;

const METHODS: readonly Method[] = [
  'insert',
  'get',
  'findByUser',
  'hasNewerSession',
  'remember',
  'forget',
  'attachResult',
  'lease',
  'leaseDue',
  'settle',
  'counts',
  'listDeadLetters',
  'redeliverDeadLetter',
  'discardDeadLetter',
  'dueSummary',
  'forgetUser',
  'claimStart',
  'endStart',
];

interface LoggedCall {
  at: number;
  method: Method;
  options: unknown;
}

/**
 * A real store's replica, for a failover on real servers: the store's own detection
 * (RedisStore's write count, PostgresStore's timeline) then says whether it lost writes.
 */
export interface RealFailover {
  /** The replica stops receiving the primary's writes from now on (it falls behind). */
  detach(): Promise<void>;
  /**
   * The primary is gone and the replica takes its place. Resolves with how much the replica
   * lacked of what the primary had acknowledged, from the servers themselves (0: nothing).
   */
  promote(): Promise<number>;
}

/**
 * The one store every simulated instance shares, as a replicated server would be: a
 * MemoryStore as its primary, a log of every call it acknowledged (a replica is that log
 * replayed up to where it lags), its own clock (`readClock`, true time), and the faults of
 * the schedule: an outage, an emptied store, a failover to a replica that lags.
 *
 * Or a real store (RedisStore, PostgresStore), the slower mode: time stands still while it
 * answers, so a run still follows its schedule. Its alarms are its own, and it fails over
 * only with a `RealFailover`: the replica is detached `lagMs` before the failover, and what
 * it lacked is lost.
 */
export class SimulatedStore {
  private primary: Store;
  private readonly real: boolean;
  private log: LoggedCall[] = [];
  private readonly alarms = new StoreAlarmListeners();
  private readonly closedListeners = new Set<ClosedRecordListener>();
  private unsubscribeClosed: () => void;
  private readonly unsubscribeAlarms: () => void;
  private down = false;
  /** Calls acknowledged since the run began (a replica can lose the last of them). */
  acknowledged = 0;

  constructor(
    private readonly scheduler: Scheduler,
    real?: Store,
    private readonly realFailover?: RealFailover,
  ) {
    this.primary = real ?? new MemoryStore();
    this.real = real !== undefined;
    this.unsubscribeClosed = this.subscribeClosed();
    // A real store says itself when it lost what it acknowledged.
    this.unsubscribeAlarms =
      real?.onAlarm?.((alarm) => this.alarms.raise(alarm.code, alarm.message)) ?? (() => undefined);
  }

  /** Whether a failover detaches a replica ahead of time (`detachReplica`), on real servers. */
  get failsOverForReal(): boolean {
    return this.realFailover !== undefined;
  }

  /** The real replica stops following the primary: what is written from now on, it lacks. */
  detachReplica(): Promise<void> {
    if (!this.realFailover) throw new Error('This store has no real replica to detach.');
    const detaching = this.realFailover.detach();
    this.scheduler.block(detaching);
    return detaching;
  }

  /** The store as one process sees it: nothing reaches a process that died meanwhile. */
  viewFor(alive: () => boolean): Store {
    const view = {} as Record<string, unknown>;
    for (const method of METHODS) {
      // Optional methods a real store lacks stay absent, as the Receiver would find them.
      if (typeof this.primary[method] !== 'function') continue;
      view[method] = (options: unknown) => gate(() => this.call(method, options), alive);
    }
    view.readClock = () => gate(() => this.readClock(), alive);
    // A process that died hears nothing more.
    view.onAlarm = (listener: StoreAlarmListener) => {
      const heard: StoreAlarmListener = (alarm) => alive() && listener(alarm);
      return this.alarms.subscribe(heard);
    };
    view.watchClosed = (listener: ClosedRecordListener) => {
      const heard: ClosedRecordListener = (key) => alive() && listener(key);
      this.closedListeners.add(heard);
      return () => this.closedListeners.delete(heard);
    };
    return view as unknown as Store;
  }

  /** Ends the subscription to the store's closed-record notices (it holds a connection). */
  close(): void {
    this.unsubscribeClosed();
    this.unsubscribeAlarms();
  }

  isDown(): boolean {
    return this.down;
  }

  setDown(down: boolean): void {
    this.down = down;
  }

  /** Everything is gone, as after a restart without persistence; the store's marker tells. */
  empty(): void {
    this.replace(new MemoryStore(), []);
    this.alarms.raise('store_reset', 'The simulated store lost everything it held.');
  }

  /**
   * The primary dies and a replica `lagMs` behind takes over: the calls of the last `lagMs`
   * are lost. Returns how many acknowledged calls were lost. As RedisStore and PostgresStore
   * do (by the write count or timeline they remember), the simulated store tells when it lost
   * what it had acknowledged: a model of their detection. On real servers (`RealFailover`),
   * the real store's own detection tells, or nothing does.
   */
  async failOver(lagMs: number): Promise<number> {
    if (this.realFailover) {
      // Detached `lagMs` ago (see detachReplica); the store's own detection is what is tested.
      const promoting = this.realFailover.promote();
      this.scheduler.block(promoting);
      return promoting;
    }
    const horizon = this.scheduler.now() - lagMs;
    const kept = this.log.filter((call) => call.at <= horizon);
    const replica = new MemoryStore();
    for (const call of kept) {
      await (replica[call.method] as (options: unknown) => Promise<unknown>)(
        structuredClone(call.options),
      );
    }
    const lost = this.log.length - kept.length;
    this.replace(replica, kept);
    if (lost > 0) {
      this.alarms.raise(
        'store_rewound',
        `The simulated store failed over and lost ${lost} writes.`,
      );
    }
    return lost;
  }

  readClock(): Promise<number> {
    return this.down ? unavailable() : Promise.resolve(this.scheduler.now());
  }

  private call(method: Method, options: unknown): Promise<unknown> {
    if (this.down) return unavailable();
    this.acknowledged += 1;
    const answer = (this.primary[method] as (options: unknown) => Promise<unknown>)(options);
    if (this.real) this.scheduler.block(answer.catch(() => undefined));
    else this.log.push({ at: this.scheduler.now(), method, options: structuredClone(options) });
    return answer;
  }

  private replace(primary: MemoryStore, log: LoggedCall[]): void {
    if (this.real) throw new Error('A real store is neither emptied nor failed over here.');
    this.unsubscribeClosed();
    this.primary = primary;
    this.log = log;
    this.unsubscribeClosed = this.subscribeClosed();
  }

  private subscribeClosed(): () => void {
    const unsubscribe = this.primary.watchClosed?.((key) => {
      for (const listener of this.closedListeners) listener(key);
    });
    return unsubscribe ?? (() => undefined);
  }
}

function unavailable(): Promise<never> {
  return Promise.reject(new Error('The simulated store is unavailable.'));
}

const never = new Promise<never>(() => undefined);

/** A call's answer, or nothing ever when its process died before the answer came. */
function gate<T>(call: () => Promise<T>, alive: () => boolean): Promise<T> {
  if (!alive()) return never;
  return call().then(
    (value) => (alive() ? value : never),
    (error: unknown) => (alive() ? Promise.reject(error) : never),
  );
}
