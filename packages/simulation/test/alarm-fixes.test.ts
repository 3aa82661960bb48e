import { fixturePayload } from '@faceverify/core/testing';
import { describe, expect, it } from 'vitest';
import { checkAlarmFixes } from '../src/alarm-fixes.js';
import { SECRET_1, SECRET_2 } from '../src/configuration.js';
import { Ledger } from '../src/ledger.js';
import type { Schedule, Step } from '../src/schedule.js';

// The invariant "no alarm names a wrong fix" fails on an alarm whose fix does not fit what the
// schedule did, and passes the same alarm where it does.

const T0 = 1_000_000;
const MINUTE = 60_000;

function run(steps: Step[], alert: { code: string; at: number; message?: string }) {
  const schedule: Schedule = {
    clockOffsetsMs: [0],
    steps: [{ at: 0, kind: 'boot', instance: 0, configuration: { secrets: [SECRET_1] } }, ...steps],
    handlers: [],
    activeMs: 60 * MINUTE,
    settleMs: 0,
  };
  const ledger = new Ledger();
  ledger.alerts.push({
    at: T0 + alert.at,
    instance: 0,
    code: alert.code,
    message: alert.message ?? '',
  });
  return checkAlarmFixes(ledger, schedule, T0);
}

describe('no alarm names a wrong fix', () => {
  it('webhooks_missing: wrong when the results polling recovered had their webhook accepted', () => {
    /** The alarm at 10 minutes, after tok_1's result was recovered by polling at 9. */
    const judged = (webhookAnswer?: string) => {
      const schedule: Schedule = {
        clockOffsetsMs: [0],
        steps: [{ at: 0, kind: 'boot', instance: 0, configuration: { secrets: [SECRET_1] } }],
        handlers: [],
        activeMs: 60 * MINUTE,
        settleMs: 0,
      };
      const ledger = new Ledger();
      ledger.commits.push({
        at: T0 + 9 * MINUTE,
        instance: 0,
        token: 'tok_1',
        eventId: 'evt_1',
        confirmed: true,
        source: 'poll',
        data: fixturePayload(),
      });
      if (webhookAnswer) {
        ledger.webhookAnswers.push({
          at: T0 + 5 * MINUTE,
          instance: 0,
          token: 'tok_1',
          answer: webhookAnswer,
        });
      }
      ledger.alerts.push({
        at: T0 + 10 * MINUTE,
        instance: 0,
        code: 'webhooks_missing',
        message: '',
      });
      return checkAlarmFixes(ledger, schedule, T0);
    };
    expect(judged('settling')).toEqual([
      'wrong fix: instance 0 raised webhooks_missing at 600.0 s, but every result it recovered by polling in the window had its webhook accepted',
    ]);
    expect(judged('store_unavailable')).toEqual([]);
    expect(judged()).toEqual([]);
  });

  it('secret_mismatch: wrong while the instance lists the service secret, right when it does not', () => {
    expect(run([], { code: 'secret_mismatch', at: MINUTE })).toHaveLength(1);
    const switched: Step = { at: 30_000, kind: 'service-secret', secret: SECRET_2 };
    expect(run([switched], { code: 'secret_mismatch', at: MINUTE })).toEqual([]);
  });

  it("backlog_growing: 'raise sweepBatchSize' is wrong when the store was down meanwhile", () => {
    const down: Step[] = [
      { at: 2 * MINUTE, kind: 'store-down', down: true },
      { at: 4 * MINUTE, kind: 'store-down', down: false },
    ];
    const throughput = 'Raise sweepBatchSize or sweepConcurrency';
    expect(run(down, { code: 'backlog_growing', at: 5 * MINUTE, message: throughput })).toEqual([
      'wrong fix: instance 0 raised backlog_growing at 300.0 s, but the store was down in the window',
    ]);
    const store = "Check the store's connection";
    expect(run(down, { code: 'backlog_growing', at: 5 * MINUTE, message: store })).toEqual([]);
    expect(run([], { code: 'backlog_growing', at: 5 * MINUTE, message: throughput })).toEqual([]);
  });
});
