import { raceStarts, startRacesKept } from '@faceverify/test-support/start-races';
import { describe, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/clients.js';

// Three instances of one store, each on its own connection, as three processes would be:
// contract rule 13 across them, with every claim sent at once.
describe('starts across instances sharing one Redis', () => {
  it('of 50 claims of one start one is granted, all 50 reuse its session, a shared limit holds', async () => {
    const prefix = uniquePrefix('starts');
    const stores = Array.from({ length: 3 }, () => new RedisStore({ redis: connect(), prefix }));
    const race = { callers: 50, limit: 20 };
    const races = await raceStarts(stores, { label: prefix, now: Date.now(), ...race });
    expect(races).toEqual(startRacesKept(race));
  });
});
