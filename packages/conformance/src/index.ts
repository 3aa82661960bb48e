export type { ConformanceCase } from './case.js';
export { conformanceCases } from './conformance-cases.js';
export { createFixture, type Fixture, LIMIT, SECRET } from './fixture.js';
export { assertAccepted, assertError } from './harness.js';
export { type Listening, listen } from './http/listen.js';
export {
  ACCOUNT_HEADER,
  ACCOUNT_ROUTE_PATH,
  type AppSpec,
  type BodyParserSetup,
  type ConformanceTarget,
  type LaterMiddlewareAnswer,
  type MountStyle,
  OWN_ROUTE_PATH,
  OWN_ROUTE_TEXT,
  type RunningApp,
  type WebhookHandle,
  type WebhookOptionsUnderTest,
} from './target.js';
