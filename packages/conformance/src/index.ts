export type { ConformanceCase } from './case.js';
export { conformanceCases } from './conformance-cases.js';
export { createFixture, type Fixture, LIMIT, OLD_SECRET, SECRET } from './fixture.js';
export { assertAccepted, assertError, ROUTE_PATH, withApp } from './harness.js';
export {
  type AppSpec,
  type BodyParserSetup,
  type ConformanceTarget,
  DEFAULT_WEBHOOK_PATH,
  type LaterMiddlewareAnswer,
  type MountStyle,
  OWN_ROUTE_PATH,
  OWN_ROUTE_TEXT,
  type RunningApp,
  type WebhookHandle,
  type WebhookOptionsUnderTest,
} from './target.js';
export { closeServer, type Listening, listen } from './http/listen.js';
