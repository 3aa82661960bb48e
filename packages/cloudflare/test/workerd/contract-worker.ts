// The Worker the host tests run in workerd: each route runs checks of D1Store against the real
// local D1 bound as DB, and answers with what happened, so the host decides pass or fail.
import { checkStoreAgainstModel, storeContractCases } from '@faceverify/core/testing';
import { raceStarts, startRacesKept } from '@faceverify/test-support/start-races';
import { applyMigrations, type D1Database, D1Store, D1StoreError } from '../../src/index.js';
import { deliveryCost } from './delivery-cost.js';
import { measureSweep } from './measure-sweep.js';
import { retentionReport } from './retention-report.js';
import { d1RoundTrips, d1StartRoundTrips } from './round-trips.js';
import { scalingReport } from './scaling-report.js';
import { tableDump } from './table-dump.js';
import { trackerBench } from './tracker-bench.js';
import { untrackedResults } from './untracked-results.js';

interface Env {
  DB: D1Database;
  /** A database without the migrations applied. */
  EMPTY: D1Database;
}

async function emptyStore(db: D1Database): Promise<D1Store> {
  await applyMigrations(db);
  await db.batch([
    db.prepare('DELETE FROM faceverify_records'),
    db.prepare('DELETE FROM faceverify_digests'),
    db.prepare('DELETE FROM faceverify_starts'),
    db.prepare('DELETE FROM faceverify_start_counts'),
  ]);
  return new D1Store({ db });
}

function describeError(error: unknown) {
  return error instanceof D1StoreError
    ? { name: error.name, code: error.code, failure: error.failure, message: error.message }
    : { name: 'Error', message: error instanceof Error ? error.stack : String(error) };
}

async function route(url: URL, env: Env): Promise<unknown> {
  switch (url.pathname) {
    case '/cases': {
      const cases = storeContractCases(() => emptyStore(env.DB));
      const check = cases.find((candidate) => candidate.name === url.searchParams.get('name'));
      if (!check) return { ok: false, error: `no case named ${url.searchParams.get('name')}` };
      try {
        await check.run();
        return { ok: true };
      } catch (error) {
        return { ok: false, error: error instanceof Error ? error.message : String(error) };
      }
    }
    case '/migrations': {
      const first = await applyMigrations(env.DB);
      const second = await applyMigrations(env.DB);
      const { results } = await env.DB.prepare('SELECT name FROM d1_migrations').all();
      return { first, second, recorded: results };
    }
    case '/missing-schema':
      try {
        await new D1Store({ db: env.EMPTY }).get({ key: 'k', now: 0 });
        return { threw: false };
      } catch (error) {
        return { threw: true, ...describeError(error) };
      }
    case '/malformed': {
      const store = await emptyStore(env.DB);
      await env.DB.prepare(
        `INSERT INTO faceverify_records (key, external_user_id, created_at, expires_at, state,
           due_at, attempts, result, purge_at) VALUES ('bad', 'u', 0, 0, 'pending', 0, 0, '{oops', 9e15)`,
      ).run();
      try {
        await store.get({ key: 'bad', now: 1 });
        return { threw: false };
      } catch (error) {
        return { threw: true, ...describeError(error) };
      }
    }
    case '/not-a-binding':
      try {
        new D1Store({ db: {} as D1Database });
        return { threw: false };
      } catch (error) {
        return { threw: true, ...describeError(error) };
      }
    case '/dump':
      return tableDump(env.DB);
    case '/model': {
      // The model shipped in @faceverify/core/testing, as the other stores run it.
      const runs = Number(url.searchParams.get('runs'));
      if (!(runs > 0)) return { ok: false, error: 'runs must be a positive number' };
      try {
        await checkStoreAgainstModel({ createStore: () => emptyStore(env.DB), runs });
        return { ok: true };
      } catch (error) {
        return { ok: false, error: error instanceof Error ? error.message : String(error) };
      }
    }
    case '/round-trips':
      return d1RoundTrips(env.DB, () => emptyStore(env.DB));
    case '/start-round-trips':
      return d1StartRoundTrips(env.DB, () => emptyStore(env.DB));
    case '/start-races': {
      // Three D1Stores on one binding, as three isolates would have: every claim at once.
      await emptyStore(env.DB);
      const stores = Array.from({ length: 3 }, () => new D1Store({ db: env.DB }));
      const race = { callers: 50, limit: 20 };
      const races = await raceStarts(stores, { label: 'd1', now: Date.now(), ...race });
      return { races, kept: startRacesKept(race) };
    }
    case '/scaling':
      await emptyStore(env.DB);
      return scalingReport(env.DB);
    case '/retention':
      return retentionReport(env.DB, () => emptyStore(env.DB));
    case '/measure-sweep':
      return measureSweep(
        env.DB,
        () => emptyStore(env.DB),
        Number(url.searchParams.get('n')),
        Number(url.searchParams.get('concurrency') ?? 4),
      );
    default:
      return undefined;
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    try {
      const url = new URL(request.url);
      const body = url.pathname.startsWith('/cost/')
        ? await deliveryCost(request, env.DB)
        : url.pathname.startsWith('/tracker/')
          ? await trackerBench(url, env.DB)
          : url.pathname.startsWith('/untracked/')
            ? await untrackedResults(request, env.DB)
            : await route(url, env);
      if (body instanceof Response) return body;
      return body === undefined ? new Response('not found', { status: 404 }) : Response.json(body);
    } catch (error) {
      return Response.json({ crashed: describeError(error) }, { status: 500 });
    }
  },
};
