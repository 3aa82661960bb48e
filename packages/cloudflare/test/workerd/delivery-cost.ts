import { createReceiver, type Receiver } from '@faceverify/core';
import { applyMigrations, type D1Database, D1Store } from '../../src/index.js';
import { countingDatabase, type D1Traffic } from './counting-database.js';

interface CostState {
  receiver: Receiver;
  traffic: D1Traffic;
  delivered: string[];
}

// One Receiver per isolate, made by /cost/setup: the routes below are steps of one scenario
// the host drives, with the emulator as the service.
let state: CostState | undefined;

function takeTraffic(): D1Traffic {
  if (!state) throw new Error('call /cost/setup first');
  const taken = { ...state.traffic };
  Object.assign(state.traffic, { statements: 0, roundTrips: 0, rowsRead: 0 });
  return taken;
}

/**
 * How many D1 statements (and round trips) each step of a delivery costs, counted on the
 * binding a real Receiver with a D1Store uses.
 */
export async function deliveryCost(request: Request, db: D1Database): Promise<unknown> {
  // A Response is answered as it is; anything else as JSON.
  const url = new URL(request.url);
  switch (url.pathname) {
    case '/cost/setup': {
      const { base, key, secret } = (await request.json()) as {
        base: string;
        key: string;
        secret: string;
      };
      await applyMigrations(db);
      const counter = countingDatabase(db);
      const delivered: string[] = [];
      const receiver = createReceiver({
        secret,
        client: { apiKey: key, baseUrl: base },
        store: new D1Store({ db: counter.db }),
        pollScheduleMs: [0],
      });
      receiver.on('verification.completed', (event) => {
        delivered.push(`${event.data.external_user_id}:${event.source}`);
      });
      state = { receiver, traffic: counter.traffic, delivered };
      return { ok: true };
    }
    case '/cost/start': {
      takeTraffic();
      const started = await state!.receiver.startVerification({
        externalUserId: url.searchParams.get('user') ?? '',
        redirectUrl: 'https://app.example/return',
      });
      return {
        token: new URL(started.verifyUrl).pathname.split('/').at(-1),
        traffic: takeTraffic(),
      };
    }
    case '/cost/webhook': {
      const answer = await state!.receiver.receive({
        method: request.method,
        headers: request.headers,
        body: new Uint8Array(await request.arrayBuffer()),
      });
      return new Response(answer.body, { status: answer.status, headers: answer.headers });
    }
    case '/cost/sweep': {
      takeTraffic();
      const report = await state!.receiver.sweep();
      return { report, traffic: takeTraffic() };
    }
    case '/cost/taken':
      return { traffic: takeTraffic(), delivered: state!.delivered };
    default:
      return undefined;
  }
}
