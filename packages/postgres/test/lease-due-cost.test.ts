import { describe, expect, it } from 'vitest';
import { PostgresStore } from '../src/index.js';
import { statements } from '../src/statements.js';
import { connect, uniquePrefix } from './support/pools.js';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** A store with its own tables, and the instant the tests seed records around. */
async function migratedStore(name: string) {
  const pool = connect();
  const prefix = uniquePrefix(name);
  const store = new PostgresStore({ pool, prefix });
  await store.migrate();
  return { pool, prefix, store, now: 10_000_000, sessions: store.tables.sessions };
}

describe('leaseDue cost', () => {
  it('dueSummary and a page of dead letters read their own rows only, through partial indexes', async () => {
    const { pool, prefix, store, now, sessions } = await migratedStore('backlog');
    // 20,000 open records, 10 of them due; 5,000 dead letters; 5,000 completed records.
    await pool.query(
      `INSERT INTO ${sessions} (key, token, external_user_id, created_at, expires_at, state, due_at, attempts, purge_at)
       SELECT 'k' || n, NULL, 'u' || n, 0, $1::bigint + 600000,
         CASE WHEN n <= 20000 THEN 'pending' WHEN n <= 25000 THEN 'failed' ELSE 'completed' END,
         CASE WHEN n % 2000 = 0 AND n <= 20000 THEN $1::bigint - n ELSE $1::bigint + 60000 + n END,
         0, CASE WHEN n > 20000 THEN $1::bigint + 600000 + n END
       FROM generate_series(1, 30000) AS n`,
      [now],
    );
    await pool.query(`ANALYZE ${sessions}`);
    const sql = statements(store.tables);
    const planOf = async (statement: string, params: unknown[]) => {
      const { rows } = await pool.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`, params);
      const plan = nodes(rows[0]['QUERY PLAN'][0].Plan as PlanNode);
      expect(plan.some((node) => node['Node Type'] === 'Seq Scan')).toBe(false);
      return plan;
    };

    const due = await planOf(sql.dueSummary, [now]);
    const dueScan = due.find((node) => node['Index Name'] === `${prefix}sessions_due`);
    expect(dueScan?.['Actual Rows']).toBe(10);
    expect(await store.dueSummary({ now })).toEqual({ due: 10, oldestDueAt: now - 20_000 });

    const page = await planOf(sql.listDeadLetters, [now, now, '', 51]);
    const pageScan = page.find((node) => node['Index Name'] === `${prefix}sessions_dead_letters`);
    expect(pageScan?.['Actual Rows']).toBe(51);
    const { records, cursor } = await store.listDeadLetters({ now, limit: 50 });
    expect(records.map((record) => record.key).slice(0, 2)).toEqual(['k20001', 'k20002']);
    expect(cursor).toBeDefined();
  });

  it('reads the due records only, through the partial index: 10 due among 20,000', async () => {
    const { pool, prefix, store, now, sessions } = await migratedStore('scale');
    // 20,000 open records, 10 of them due; plus 5,000 closed ones, which the index leaves out.
    await pool.query(
      `INSERT INTO ${sessions} (key, token, external_user_id, created_at, expires_at, state, due_at, attempts, purge_at)
       SELECT 'k' || n, 'k' || n, 'u' || n, 0, $1::bigint + 600000,
         CASE WHEN n > 20000 THEN 'completed' ELSE 'pending' END,
         CASE WHEN n % 2000 = 0 OR n > 20000 THEN $1::bigint - n ELSE $1::bigint + 60000 + n END,
         0, CASE WHEN n > 20000 THEN $1::bigint + 600000 END
       FROM generate_series(1, 25000) AS n`,
      [now],
    );
    await pool.query(`ANALYZE ${sessions}`);

    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${statements(store.tables).leaseDue}`,
        [now, 1000, 'sweeper', now + 60_000],
      );
      const plan = nodes(rows[0]['QUERY PLAN'][0].Plan as PlanNode);
      expect(plan.some((node) => node['Node Type'] === 'Seq Scan')).toBe(false);
      const scan = plan.find((node) => node['Index Name'] === `${prefix}sessions_due`);
      expect(scan?.['Node Type']).toMatch(/Index Scan/);
      // The index holds open records in due order: the scan stops at the first not yet due.
      expect(scan?.['Actual Rows']).toBe(10);
      for (const node of plan.filter((n) => n['Relation Name'] === `${prefix}sessions`)) {
        expect(node['Actual Rows'], node['Node Type']).toBeLessThanOrEqual(10);
      }

      // The retention step each sweep runs first reads only what it deletes (none here).
      const { rows: pruneRows } = await client.query(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${statements(store.tables).prune}`,
        [now, 500],
      );
      const prunePlan = nodes(pruneRows[0]['QUERY PLAN'][0].Plan as PlanNode);
      const onSessions = prunePlan.filter((n) => n['Relation Name'] === `${prefix}sessions`);
      expect(onSessions.some((node) => node['Node Type'] === 'Seq Scan')).toBe(false);
      expect(prunePlan.some((node) => node['Index Name'] === `${prefix}sessions_drop`)).toBe(true);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }

    const granted = await store.leaseDue({ now, limit: 1000, owner: 'sweeper', leaseMs: 60_000 });
    expect(granted.map((record) => record.key)).toEqual(
      [10_000, 8_000, 6_000, 4_000, 2_000, 20_000, 18_000, 16_000, 14_000, 12_000]
        .sort((a, b) => b - a)
        .map((n) => `k${n}`),
    );
  });

  it('finds every other record it writes by key or user, never by reading the table', async () => {
    const pool = connect();
    const prefix = uniquePrefix('bykey');
    const store = new PostgresStore({ pool, prefix });
    await store.migrate();
    const { sessions } = store.tables;
    await pool.query(
      `INSERT INTO ${sessions} (key, token, external_user_id, created_at, expires_at, state, due_at, attempts)
       SELECT 'k' || n, 'k' || n, 'u' || (n % 5000), n, 600000, 'pending', 60000 + n, 0
       FROM generate_series(1, 20000) AS n`,
    );
    await pool.query(`ANALYZE ${sessions}`);
    const sql = statements(store.tables);
    const result = JSON.stringify({ payload: {}, source: 'webhook', receivedAt: 1 });
    const cases: [string, unknown[]][] = [
      [sql.displace, ['u7', 'k7', 1_000, 1, 0]],
      [sql.attachResult, ['k8', result, 1_000]],
      [sql.lease, ['k9', 'w', 5_000, 1_000]],
      [sql.settleOpen, ['k10', 'w', 1_000, null, 'pending', 2_000, 1]],
      [sql.settleClosed, ['k10', 'w', 1_000, null, 'completed', null, 1_000]],
      [sql.get, ['k11', 1_000]],
      [sql.findByUser, ['u12', 1_000, 30]],
    ];
    const client = await pool.connect();
    try {
      for (const [statement, params] of cases) {
        await client.query('BEGIN');
        const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`, params);
        await client.query('ROLLBACK');
        const plan = nodes(rows[0]['QUERY PLAN'][0].Plan as PlanNode);
        const scans = plan.filter((node) => node['Relation Name'] === `${prefix}sessions`);
        expect(scans.length, statement).toBeGreaterThan(0);
        for (const node of scans) {
          expect(node['Node Type'], statement).not.toBe('Seq Scan');
          expect(node['Actual Rows'] ?? 0, statement).toBeLessThanOrEqual(4);
        }
      }
    } finally {
      client.release();
    }
  });
});
