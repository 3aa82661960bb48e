import { describe, expect, it } from 'vitest';
import { createReceiver, MemoryStore, StoreAlarm } from '../../src/index.js';
import type { StoreAlarmListener } from '../../src/store/index.js';

/** A MemoryStore that can raise alarms, as a store that may lose data does. */
class AlarmingStore extends MemoryStore {
  readonly listeners = new Set<StoreAlarmListener>();

  onAlarm(listener: StoreAlarmListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  raise(alarm: StoreAlarm): void {
    for (const listener of this.listeners) listener(alarm);
  }
}

describe('store alarms reach the Receiver', () => {
  it('logs each alarm at error level and reports it to error handlers with its code', () => {
    const store = new AlarmingStore();
    const logged: { message: string; fields: unknown }[] = [];
    const receiver = createReceiver({
      secret: 'whsec_store_alarm_test_0b6f2a9c',
      client: false,
      store,
      logger: { error: (message, fields) => logged.push({ message, fields }) },
    });
    const reported: { error: unknown; stage: string; code: string | undefined }[] = [];
    receiver.on('error', (error, context) => {
      reported.push({ error, stage: context.stage, code: context.code });
    });
    expect(store.listeners.size).toBe(1);

    const alarm = new StoreAlarm('store_reset', 'The store lost its data; enable persistence.');
    store.raise(alarm);

    expect(reported).toEqual([{ error: alarm, stage: 'store', code: 'store_reset' }]);
    expect(logged).toEqual([
      {
        message: 'The store lost its data; enable persistence.',
        fields: { code: 'store_reset' },
      },
    ]);
    expect(alarm).toMatchObject({ name: 'StoreAlarm', code: 'store_reset' });
  });

  it('works with stores that raise none', async () => {
    const receiver = createReceiver({
      secret: 'whsec_store_alarm_test_0b6f2a9c',
      client: false,
      store: new MemoryStore(),
    });
    await expect(receiver.sweep()).resolves.toBeDefined();
  });
});
