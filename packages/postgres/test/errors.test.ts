import { createReceiver } from '@faceverify/core';
import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { freePort, type PostgresServer, startPostgresServer } from '@faceverify/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redact, storeError } from '../src/errors.js';
import { PostgresStore, PostgresStoreError } from '../src/index.js';
import { connect, uniquePrefix } from './support/pools.js';
import { trackedSession } from './support/records.js';

const SECRET = 'whsec_postgres_errors_90ab';

// A server of this file's own: it is stopped and started again.
let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgresServer();
});
afterAll(async () => {
  await server?.stop();
});

async function failure(operation: Promise<unknown>): Promise<PostgresStoreError> {
  const error = await operation.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(PostgresStoreError);
  return error as PostgresStoreError;
}

/** Everything an error carries that could be logged. */
function everything(error: Error): string {
  return JSON.stringify({
    ...error,
    message: error.message,
    stack: error.stack,
    cause: error.cause,
  });
}

describe('PostgresStore errors', () => {
  it('report a refused connection as unreachable, without the connection string', async () => {
    const url = `postgres://postgres:${server.password}@127.0.0.1:${await freePort()}/postgres`;
    const store = new PostgresStore({ pool: connect(url) });
    const error = await failure(store.get({ key: 'any', now: 0 }));
    expect(error.failure).toBe('unreachable');
    expect(error.operation).toBe('get');
    expect(error.code).toBe('store_error');
    expect(error.message).toMatch(/^PostgresStore\.get failed: PostgreSQL did not answer/);
    expect(everything(error)).not.toContain(server.password);
    expect(error.cause).toBeUndefined();
  });

  it('report a wrong password as rejected, without the password', async () => {
    const wrong = `${server.password}-but-wrong`;
    const url = `postgres://postgres:${wrong}@127.0.0.1:${server.port}/postgres`;
    const error = await failure(
      new PostgresStore({ pool: connect(url) }).insert({ record: trackedSession(), now: 0 }),
    );
    expect(error.failure).toBe('rejected');
    expect(error.sqlState).toBe('28P01');
    expect(everything(error)).not.toContain(wrong);
    expect(everything(error)).not.toContain(server.password);
  });

  it('say to migrate when the tables are missing', async () => {
    const store = new PostgresStore({ pool: connect(server.url()), prefix: uniquePrefix('none') });
    const error = await failure(store.counts({ now: 0 }));
    expect(error.failure).toBe('schema_missing');
    expect(error.sqlState).toBe('42P01');
    expect(error.message).toContain('run `await store.migrate()`');
  });

  it('report a row the store did not write as malformed, without its result', async () => {
    const pool = connect(server.url());
    const store = new PostgresStore({ pool, prefix: uniquePrefix('malformed') });
    await store.migrate();
    await pool.query(
      `INSERT INTO ${store.tables.sessions} (key, external_user_id, created_at, expires_at, state,
         due_at, attempts, result) VALUES ('bad', 'u', 0, 9e12, 'pending', 0, 0, '{"secret": 1')`,
    );
    const error = await failure(store.get({ key: 'bad', now: 1 }));
    expect(error.failure).toBe('malformed');
    expect(error.sqlState).toBeUndefined();
    expect(error.message).toContain('a stored result is not valid JSON');
    expect(everything(error)).not.toContain('secret');
  });

  it('redact passwords and credentials of connection strings from any message', () => {
    const message = `connect to postgres://admin:s3cr3t@db:5432/app failed; password=s3cr3t host=db`;
    expect(redact(message, [])).toBe(
      'connect to postgres://***@db:5432/app failed; password=*** host=db',
    );
    const error = storeError(
      'lease',
      new Error('auth failed for s3cr3t'),
      ['s3cr3t'],
      'PostgresStore',
    );
    expect(error.message).not.toContain('s3cr3t');
  });

  it.each(['a', '1', '0'])(
    'leave a message whole for the password "%s", too short to hide where it stands alone',
    (password) => {
      const message = `postgres://max:${password}@127.0.0.1:5432/a failed; password=${password} host=127.0.0.1; is a server running?`;
      expect(redact(message, [password])).toBe(
        'postgres://***@127.0.0.1:5432/a failed; password=*** host=127.0.0.1; is a server running?',
      );
    },
  );

  it('make the Receiver answer 503 store_unavailable while the server is down, then recover', async () => {
    const pool = connect(server.url(), { connectionTimeoutMillis: 2_000 });
    const store = new PostgresStore({ pool, prefix: uniquePrefix('outage') });
    await store.migrate();
    const receiver = createReceiver({ secret: SECRET, client: false, store });
    const delivered: string[] = [];
    receiver.on('verification.completed', (event) => {
      delivered.push(event.data.external_user_id);
    });
    const reported: unknown[] = [];
    receiver.on('error', (error) => {
      reported.push(error);
    });
    const delivery = await signedDelivery(fixturePayload({ external_user_id: 'u_outage' }), {
      secret: SECRET,
    });

    await server.stop({ remove: false });
    const during = await receiver.receive(delivery);
    expect(during.status).toBe(503);
    expect(JSON.parse(during.body).error).toBe('store_unavailable');
    expect(reported[0]).toBeInstanceOf(PostgresStoreError);
    expect((reported[0] as PostgresStoreError).failure).toBe('unreachable');
    expect(everything(reported[0] as Error)).not.toContain(server.password);
    expect(delivered).toEqual([]);

    server = await startPostgresServer({
      dir: server.dir,
      port: server.port,
      password: server.password,
    });
    const after = await receiver.receive(delivery);
    expect(after.status).toBe(200);
    expect(delivered).toEqual(['u_outage']);
  });
});
