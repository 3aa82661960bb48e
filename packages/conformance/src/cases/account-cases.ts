import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { expect } from 'vitest';
import type { ConformanceCase } from '../case.js';
import { createFixture, SECRET } from '../fixture.js';
import { assertAccepted, assertError, type Delivery, withApp } from '../harness.js';
import {
  ACCOUNT_HEADER,
  ACCOUNT_ROUTE_PATH,
  type ConformanceTarget,
  DEFAULT_WEBHOOK_PATH,
  type MountStyle,
} from '../target.js';

// A Receiver of several accounts: each account's webhooks arrive on a path of their own
// (`/webhooks/verification/<account id>`, its callback URL) and are verified with that
// account's secret only.

const ACME = 'acme';
const GLOBEX = 'globex';
const SECRETS = {
  [ACME]: 'whsec_conformance_acme_3b8e41d07a',
  [GLOBEX]: 'whsec_conformance_globex_c61f9a2e54',
};

const severalAccounts = () => createFixture({ accounts: SECRETS });

/** The webhook the service sends for `account`, signed with its secret. */
function deliveryOf(account: keyof typeof SECRETS, user = 'user-1'): Promise<Delivery> {
  return signedDelivery(fixturePayload({ external_user_id: user }), { secret: SECRETS[account] });
}

const pathOf = (account: string) => `${DEFAULT_WEBHOOK_PATH}/${account}`;

function routeParameterCases(target: ConformanceTarget): ConformanceCase[] {
  const mount = 'route';
  const input = { mount, routePath: ACCOUNT_ROUTE_PATH } as const;
  return [
    {
      name: "several accounts: each account's webhook on its own path is accepted, with its account on the event",
      async run() {
        const fixture = severalAccounts();
        await withApp(target, input, fixture, async (app) => {
          assertAccepted(await app.postTo(pathOf(ACME), await deliveryOf(ACME, 'alice')));
          assertAccepted(await app.postTo(pathOf(GLOBEX), await deliveryOf(GLOBEX, 'alice')));
          expect(
            fixture.events.map((event) => [event.account, event.data.external_user_id]),
          ).toEqual([
            [ACME, 'alice'],
            [GLOBEX, 'alice'],
          ]);
        });
      },
    },
    {
      name: "several accounts: a webhook signed with one account's secret is 401 on another's path",
      async run() {
        const fixture = severalAccounts();
        await withApp(target, input, fixture, async (app) => {
          const delivery = await deliveryOf(ACME);
          assertError(await app.postTo(pathOf(GLOBEX), delivery), 401, 'signature_invalid');
          expect(fixture.events.length).toBe(0);
          // Its own account's path still takes it: the refusal recorded nothing.
          assertAccepted(await app.postTo(pathOf(ACME), delivery));
          expect(fixture.events.map((event) => event.account)).toEqual([ACME]);
        });
      },
    },
    {
      name: 'several accounts: a path naming no account of the Receiver is 404 account_unknown',
      async run() {
        const fixture = severalAccounts();
        await withApp(target, input, fixture, async (app) => {
          const delivery = await deliveryOf(ACME);
          assertError(await app.postTo(pathOf('initech'), delivery), 404, 'account_unknown');
          // Not an account id at all (a path segment needs no escaping in one).
          assertError(await app.postTo(pathOf('acme%20x'), delivery), 404, 'account_unknown');
          expect(fixture.events.length).toBe(0);
        });
      },
    },
    {
      name: 'several accounts: a route without the account parameter is 500 account_missing',
      async run() {
        const fixture = severalAccounts();
        await withApp(target, { mount }, fixture, async (app) => {
          expect(app.webhookPath).not.toContain(':account');
          assertError(await app.post(await deliveryOf(ACME)), 500, 'account_missing');
          expect(fixture.events.length).toBe(0);
        });
      },
    },
    {
      name: 'one account: the account route parameter is ignored',
      async run() {
        const fixture = createFixture();
        await withApp(target, input, fixture, async (app) => {
          const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
          assertAccepted(await app.postTo(pathOf('anything'), delivery));
          expect(fixture.events.map((event) => event.account)).toEqual([undefined]);
        });
      },
    },
  ];
}

function accountOptionCase(target: ConformanceTarget, mount: MountStyle): ConformanceCase {
  return {
    name: 'several accounts: the account option, a function of the request, names the account',
    async run() {
      const fixture = severalAccounts();
      await withApp(target, { mount, accountHeader: ACCOUNT_HEADER }, fixture, async (app) => {
        const delivery = await deliveryOf(GLOBEX);
        const withAccount = (account: string) => ({
          ...delivery,
          headers: { ...delivery.headers, [ACCOUNT_HEADER]: account },
        });
        assertError(await app.post(withAccount(ACME)), 401, 'signature_invalid');
        assertError(await app.post(withAccount('initech')), 404, 'account_unknown');
        assertError(await app.post(delivery), 500, 'account_missing');
        expect(fixture.events.length).toBe(0);
        assertAccepted(await app.post(withAccount(GLOBEX)));
        expect(fixture.events.map((event) => event.account)).toEqual([GLOBEX]);
      });
    },
  };
}

export function accountCases(target: ConformanceTarget, mount: MountStyle): ConformanceCase[] {
  return [
    ...(mount === 'route' ? routeParameterCases(target) : []),
    ...(mount === 'use'
      ? [
          {
            name: 'several accounts: mounted app-wide, with no route parameter, it is 500 account_missing',
            async run() {
              const fixture = severalAccounts();
              await withApp(target, { mount }, fixture, async (app) => {
                assertError(await app.post(await deliveryOf(ACME)), 500, 'account_missing');
                expect(fixture.events.length).toBe(0);
              });
            },
          },
        ]
      : []),
    accountOptionCase(target, mount),
  ];
}
