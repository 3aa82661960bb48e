import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { statementsOf } from '../src/apply-migrations.js';
import { FACEVERIFY_MIGRATIONS } from '../src/index.js';

const DIR = fileURLToPath(new URL('../migrations/', import.meta.url));

describe('the migrations shipped for wrangler', () => {
  it('are the ones applyMigrations applies, file for file', () => {
    const files = readdirSync(DIR)
      .filter((name) => name.endsWith('.sql'))
      .sort();
    expect(FACEVERIFY_MIGRATIONS.map((migration) => migration.name)).toEqual(files);
    for (const migration of FACEVERIFY_MIGRATIONS) {
      expect(migration.sql).toBe(readFileSync(`${DIR}${migration.name}`, 'utf8'));
    }
  });

  it('are split into statements without their comments', () => {
    const statements = statementsOf(FACEVERIFY_MIGRATIONS[0]!.sql);
    expect(statements).toHaveLength(6);
    expect(statements.every((statement) => !statement.includes('--'))).toBe(true);
    expect(statements[0]).toMatch(/^CREATE TABLE IF NOT EXISTS faceverify_records \(/);
  });
});
