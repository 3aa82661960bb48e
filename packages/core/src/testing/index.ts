/**
 * For tests: an app's tests of its webhook route and handlers (signed deliveries of fixture
 * payloads, a clock moved by hand), a store author's model check, and the privacy canary that
 * finds personal data kept in clear.
 *
 * @module @faceverify/core/testing
 */

// Each name says who uses it and why: the examples' and adapters' tests, docs/testing.md, the
// stores' tests, the reliability suite.

// Tests of handlers and routes (examples, adapters, docs/testing.md): a valid payload to sign.
export { fixturePayload } from './fixture-payload.js';
export {
  // What `privacyCanary` returns.
  type PrivacyCanary,
  // The reliability suite and docs/privacy.md: recognisable personal data, found where kept.
  privacyCanary,
} from './privacy-canary.js';
export {
  // What `signedDelivery` and `tamperedDelivery` take: the secret, the exact body or layout.
  type SignedDeliveryOptions,
  // Tests of a webhook route (examples, adapters, docs/testing.md): a request the service signed.
  signedDelivery,
  // What `signedDelivery` and `tamperedDelivery` return: method, headers, body, signature.
  type TestDelivery,
  // Tests of a webhook route (examples, adapters, the conformance suite): a forged request.
  tamperedDelivery,
} from './signed-delivery.js';
export {
  // What `storeContractCases` returns: one case, run by a store's own test runner.
  type StoreContractCase,
  // Redis, PostgreSQL and D1 tests: the cases every Store must pass.
  storeContractCases,
} from './store-contract.js';
export {
  // Redis, PostgreSQL and D1 tests (docs/polling-and-stores.md): a store answers as MemoryStore.
  checkStoreAgainstModel,
  // A settle step of the model (`StoreModelStep`).
  type SettleSpec,
  // What `checkStoreAgainstModel` takes.
  type StoreModelOptions,
  // What `storeModelSteps` lists.
  type StoreModelStep,
  // A store author replaying a failed check: the steps of the seed it names (core's own test).
  storeModelSteps,
} from './store-model.js';
export {
  // Tests that move time by hand (adapters, stores, the emulator, docs/testing.md).
  createTestClock,
  // What `createTestClock` returns (the reliability suite types its helpers with it).
  type TestClock,
} from './test-clock.js';
