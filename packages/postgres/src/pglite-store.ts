import type { PGliteInterface, Transaction } from '@electric-sql/pglite';
import { ConfigurationError } from '@faceverify/core';
import { pgliteDatabase } from './pglite-database.js';
import { SqlStore, type SqlStoreOptions } from './sql-store.js';

/** Options of `new PGliteStore(...)`. */
export interface PGliteStoreOptions extends SqlStoreOptions {
  /** The PGlite instance to work in (in memory, or a data folder). The application owns it. */
  db: PGliteInterface;
}

/**
 * The PostgreSQL store on an embedded PGlite database, for development and single-machine
 * apps with no database server. Same tables, same guarantees: transactional handlers get
 * PGlite's `Transaction` as `context.transaction`. PGlite runs one transaction at a time, so
 * a transactional handler must write through that transaction, never through `db` (which
 * would wait for the transaction to end).
 *
 * @example
 * import { PGlite } from '@electric-sql/pglite';
 * import { PGliteStore } from '@faceverify/postgres/pglite';
 *
 * const store = new PGliteStore({ db: new PGlite('./data/faceverify') });
 * await store.migrate();
 * const receiver = createReceiver({ secret: process.env.WEBHOOK_SECRET!, store });
 */
export class PGliteStore extends SqlStore<Transaction> {
  constructor(options: PGliteStoreOptions) {
    const db = options?.db;
    if (!db || typeof db.query !== 'function' || typeof db.transaction !== 'function') {
      throw new ConfigurationError(
        'PGliteStore needs `db`: a PGlite instance, e.g. new PGliteStore({ db: new PGlite() }).',
      );
    }
    super(pgliteDatabase(db), options, 'PGliteStore');
  }
}
