import { checkStoreAgainstModel, storeContractCases } from '@faceverify/core/testing';
import { useRedisServer } from '@faceverify/test-support';
import { expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/clients.js';

// Redis Cluster decides where a script runs, and whether it must wait while its slot moves,
// from the keys the script declares (KEYS) alone: a key touched without being declared may be
// read or written on a node that no longer holds it (scripts/declared-keys.ts). Nothing in
// Redis refuses such a key on one node, so every command the scripts run is watched here
// (MONITOR shows each script's commands right after the EVAL or EVALSHA that ran them), while
// the whole Store contract and random sequences of operations run, with the hints of the
// Store calls right, wrong and absent: every key a command touches must be one its script
// declared. MONITOR sees every client of a server, so this file has a server of its own.
const server = useRedisServer();

/** The keys a command run by a script touches (the commands the scripts use). */
function keysOf(command: string, args: string[]): string[] {
  switch (command) {
    case 'del':
    case 'exists':
      return args;
    case 'publish':
      return [];
    default:
      return args.slice(0, 1);
  }
}

const SCRIPT_COMMANDS = new Set(['eval', 'evalsha', 'eval_ro', 'evalsha_ro']);

it('every command of every script touches only the keys the script declared', {
  timeout: 180_000,
}, async () => {
  const redis = connect(server().url);
  const monitor = await connect(server().url).monitor();
  const seen: { lua: boolean; args: string[] }[] = [];
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    seen.push({ lua: source === 'lua', args });
  });
  try {
    const newStore = () => new RedisStore({ redis, prefix: uniquePrefix('declared') });
    for (const check of storeContractCases(newStore)) await check.run();
    await checkStoreAgainstModel({ createStore: newStore, runs: 20, seed: 1 });
    // The last command: once MONITOR shows it, it has shown everything before it.
    await redis.echo('declared-keys: done');
    while (!seen.some(({ args }) => args[0] === 'echo' && args[1] === 'declared-keys: done')) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    monitor.disconnect();
  }

  const undeclared = new Set<string>();
  let declared: Set<string> | undefined;
  let script = '';
  let checked = 0;
  for (const { lua, args } of seen) {
    const command = String(args[0]).toLowerCase();
    if (!lua) {
      declared = SCRIPT_COMMANDS.has(command)
        ? new Set(args.slice(3, 3 + Number(args[2])))
        : undefined;
      script = String(args[1]).slice(0, 12);
      continue;
    }
    expect(declared, `a script command outside a script: ${args.join(' ')}`).toBeDefined();
    for (const key of keysOf(command, args.slice(1))) {
      checked += 1;
      if (!declared!.has(key)) undeclared.add(`${script}: ${command} ${key}`);
    }
  }
  expect(checked).toBeGreaterThan(10_000);
  expect([...undeclared]).toEqual([]);
});
