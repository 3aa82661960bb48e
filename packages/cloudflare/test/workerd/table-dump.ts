import type { D1Database } from '../../src/index.js';

/**
 * Every row of every faceverify table, as JSON text: what a D1 export or a Time Travel
 * restore would hand to whoever reads it.
 */
export async function tableDump(db: D1Database): Promise<{ tables: string[]; dump: string }> {
  const { results: tables } = await db
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'faceverify_%'`)
    .all<{ name: string }>();
  const parts: string[] = [];
  for (const { name } of tables) {
    const { results } = await db.prepare(`SELECT * FROM "${name}"`).all();
    parts.push(name, ...results.map((row) => JSON.stringify(row)));
  }
  return { tables: tables.map(({ name }) => name), dump: parts.join('\n') };
}
