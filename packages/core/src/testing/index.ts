/**
 * Verify, parse and reliably deliver face verification webhooks: signatures, payloads, the
 * Receiver, the API client and the polling fallback.
 *
 * @module @faceverify/core/testing
 */

export { fixturePayload } from './fixture-payload.js';
export { type PrivacyCanary, privacyCanary } from './privacy-canary.js';
export {
  type SignedDeliveryOptions,
  signedDelivery,
  type TestDelivery,
  tamperedDelivery,
} from './signed-delivery.js';
export {
  checkStoreAgainstModel,
  type SettleSpec,
  type StoreModelOptions,
  type StoreModelStep,
  storeModelSteps,
} from './store-model.js';
export { createTestClock, type TestClock } from './test-clock.js';
