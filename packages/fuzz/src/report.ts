import type { FuzzReport } from './run.js';

function tableOf(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, col) => Math.max(...all.map((row) => (row[col] ?? '').length)));
  const line = (row: string[]) =>
    row
      .map((cell, col) =>
        col === 0 ? cell.padEnd(widths[col] ?? 0) : cell.padStart(widths[col] ?? 0),
      )
      .join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** The run as text: answers per adapter, answers per category, violations. */
export function formatReport(report: FuzzReport): string {
  const out: string[] = [];
  const outcomes = [...new Set(report.adapters.flatMap((a) => Object.keys(a.statuses)))].sort();
  out.push(
    tableOf(
      [
        'adapter',
        ...outcomes,
        'valid sent',
        'handler calls',
        'violations',
        'heap +MiB',
        'RSS +MiB',
      ],
      report.adapters.map((a) => [
        a.label,
        ...outcomes.map((o) => String(a.statuses[o] ?? 0)),
        String(a.validSent),
        String(a.handlerCalls),
        String(a.violations.length),
        a.memory.heapGrowthMiB.toFixed(1),
        a.memory.rssGrowthMiB.toFixed(1),
      ]),
    ),
  );
  for (const adapter of report.adapters) {
    const categories = Object.keys(adapter.categories).sort();
    const names = [
      ...new Set(categories.flatMap((c) => Object.keys(adapter.categories[c] ?? {}))),
    ].sort();
    out.push(
      `\n${adapter.label}: ${adapter.requests} requests in ${(adapter.durationMs / 1000).toFixed(1)} s; ` +
        `memory after GC: heap ${adapter.memory.before.heapUsedMiB} → ${adapter.memory.after.heapUsedMiB} MiB, ` +
        `RSS ${adapter.memory.before.rssMiB} → ${adapter.memory.after.rssMiB} MiB ` +
        `(bound: heap +${adapter.memory.bound.heapGrowthMiB}, RSS +${adapter.memory.bound.rssGrowthMiB})`,
    );
    out.push(
      tableOf(
        ['category', ...names],
        categories.map((c) => [c, ...names.map((n) => String(adapter.categories[c]?.[n] ?? ''))]),
      ),
    );
    if (adapter.frameworkErrors.length > 0) {
      out.push(
        `framework errors (first ${adapter.frameworkErrors.length}): ${adapter.frameworkErrors.join(' | ')}`,
      );
    }
    if (adapter.violations.length > 0) {
      out.push(`VIOLATIONS (${adapter.violations.length}):`);
      for (const v of adapter.violations.slice(0, 25)) {
        out.push(`  #${v.index} ${v.category} (${v.note}): ${v.problem}`);
      }
    }
  }
  if (report.processErrors.length > 0) {
    out.push(
      `\nPROCESS ERRORS (${report.processErrors.length}):\n${report.processErrors.slice(0, 5).join('\n')}`,
    );
  }
  out.push(
    `\n${report.ok ? 'OK' : 'FAILED'}: seed ${report.seed}, ${report.requestsPerAdapter} cases per adapter` +
      (report.ok ? '' : ' (replay one case with --seed and --only=INDEX)'),
  );
  return out.join('\n');
}
