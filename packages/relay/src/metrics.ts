import type { ReceiverHealth } from '@faceverify/core';

/** Results each sink took or refused since the relay started, for `/metrics`. */
export class SinkCounters {
  private readonly counts = new Map<string, { delivered: number; failed: number }>();

  /** Counts one run of `sink`'s handler. */
  record(sink: string, outcome: 'delivered' | 'failed'): void {
    const counts = this.counts.get(sink) ?? { delivered: 0, failed: 0 };
    counts[outcome] += 1;
    this.counts.set(sink, counts);
  }

  /** Every sink's counts so far. */
  entries(): [string, { delivered: number; failed: number }][] {
    return [...this.counts];
  }
}

type Sample = [labels: string, value: number];

function family(name: string, type: 'gauge' | 'counter', help: string, samples: Sample[]): string {
  const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`];
  for (const [labels, value] of samples) lines.push(`${name}${labels} ${value}`);
  return lines.join('\n');
}

/**
 * The relay's metrics in the Prometheus text format: the Receiver's health (readiness,
 * status, the store's records and backlog, and the counts of its 15-minute window) and each
 * sink's results since the start. Nothing of a user or a secret.
 */
export function prometheusText(health: ReceiverHealth, sinks: SinkCounters): string {
  const window = '(over the last 15 minutes)';
  const families = [
    family('faceverify_ready', 'gauge', 'Whether this relay can serve: its store answered.', [
      ['', health.ready ? 1 : 0],
    ]),
    family(
      'faceverify_status',
      'gauge',
      'The Receiver status: 1 for the current one (ok, degraded, failing).',
      (['ok', 'degraded', 'failing'] as const).map((status) => [
        `{status="${status}"}`,
        health.status === status ? 1 : 0,
      ]),
    ),
    family(
      'faceverify_alarm',
      'gauge',
      'Alarms happening now, by code (see docs/operations.md).',
      health.reasons.map((code) => [`{code="${code}"}`, 1]),
    ),
    family(
      'faceverify_store_records',
      'gauge',
      'Records in the store by state.',
      Object.entries(health.store.records ?? {}).map(([state, count]) => [
        `{state="${state}"}`,
        count,
      ]),
    ),
    family('faceverify_webhooks_accepted', 'gauge', `Webhooks accepted ${window}.`, [
      ['', health.webhooks.accepted],
    ]),
    family(
      'faceverify_webhooks_rejected',
      'gauge',
      `Webhooks rejected ${window}, by reason.`,
      Object.entries(health.webhooks.rejected).map(([reason, count]) => [
        `{reason="${reason}"}`,
        count,
      ]),
    ),
    family(
      'faceverify_deliveries',
      'gauge',
      `Results delivered, handler failures and results given up ${window}.`,
      [
        ['{outcome="webhook"}', health.deliveries.byWebhook],
        ['{outcome="poll"}', health.deliveries.byPoll],
        ['{outcome="handler_failure"}', health.deliveries.handlerFailures],
        ['{outcome="undeliverable"}', health.deliveries.undeliverable],
      ],
    ),
    family(
      'faceverify_relay_sink_results_total',
      'counter',
      'Runs of each sink since this relay started, by outcome (a failed one is retried).',
      sinks
        .entries()
        .flatMap(([sink, counts]) => [
          [`{sink="${sink}",outcome="delivered"}`, counts.delivered] as Sample,
          [`{sink="${sink}",outcome="failed"}`, counts.failed] as Sample,
        ]),
    ),
  ];
  const backlog = health.store.backlog;
  if (backlog) {
    families.push(
      family('faceverify_store_backlog_due', 'gauge', 'Work due now and not yet taken.', [
        ['', backlog.due],
      ]),
    );
  }
  return `${families.join('\n')}\n`;
}
