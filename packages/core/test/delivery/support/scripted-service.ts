import { afterEach } from 'vitest';
import type { MemoryStore } from '../../../src/index.js';
import { fixturePayload } from '../../../src/testing/index.js';
import {
  type ReceivedRequest,
  type Reply,
  type ScriptedServer,
  startScriptedServer,
} from '../../client/scripted-server.js';

export const T0 = Date.UTC(2030, 0, 1);
export const MINUTE = 60_000;

/** The service down: `GET /v1/sessions/:token` answered 503. */
export const UNAVAILABLE: Reply = {
  status: 503,
  json: { error: 'service_unavailable', message: 'The service is down.' },
};

/** `GET /v1/sessions/:token` of a session of `user`: completed (`verified`), or pending. */
export function sessionReply(token: string, user: string, completed: boolean): Reply {
  if (!completed)
    return { status: 200, json: { token, status: 'pending', external_user_id: user } };
  const { event: _event, extra: _extra, ...result } = fixturePayload({ external_user_id: user });
  return { status: 200, json: { token, status: 'verified', external_user_id: user, result } };
}

/** How each test of a file starts the service it talks to; it is closed after the test. */
export function scriptedServices(): (
  script: (request: ReceivedRequest, index: number) => Reply,
  now?: () => number,
) => Promise<ScriptedServer> {
  let server: ScriptedServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return async (script, now) => {
    server = await startScriptedServer(script, now);
    return server;
  };
}

/**
 * Waits a few turns of the event loop for `store` to hold `count` records `delivering`: what a
 * webhook's polls, or a delivery, store in the background once the call that started them
 * returned. Gives up after 100 turns: the test's assertions then tell what is missing.
 */
export async function untilDelivering(
  store: MemoryStore,
  count: number,
  now: number,
): Promise<void> {
  for (let turn = 0; turn < 100; turn++) {
    if ((await store.counts({ now })).delivering === count) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
