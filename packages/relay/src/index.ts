/**
 * The relay: one process that receives the service's webhooks, polls for lost ones, starts
 * and confirms sessions for a backend in any language through a small internal API, and
 * delivers each result into the sinks of `@faceverify/sinks`. Run it with
 * `npx faceverify-relay`; this entry is for starting it from code (a test, a supervisor).
 *
 * @module @faceverify/relay
 */

export {
  loadRelayConfig,
  type RelayConfig,
  type RelaySinkConfig,
  type RelayStoreConfig,
  SINK_KINDS,
} from './config.js';
export { type Relay, type RelayLog, startRelay } from './relay.js';
export { RelayConfigError } from './relay-config-error.js';
export { CONFIG_FILE_SETTING, type RelaySettings, readSettings } from './settings.js';
