export { atDepth, TEST_DEPTH, type TestDepth } from './depth.js';
export { type EventStreamReader, eventStreamReader } from './event-stream-reader.js';
export { type ExitedCommand, expectStartWithoutEmulator, runExampleMain } from './example-main.js';
export {
  type PgBouncerServer,
  requirePgBouncer,
  type StartPgBouncerOptions,
  startPgBouncer,
} from './pgbouncer-server.js';
export { startPostgresReplica } from './postgres-replica.js';
export {
  type PostgresServer,
  requirePostgresServer,
  type StartPostgresOptions,
  startPostgresServer,
} from './postgres-server.js';
export {
  freePort,
  type RedisServer,
  requireRedisServer,
  type StartOptions,
  startRedisServer,
} from './redis-server.js';
export {
  measureReceiverPaths,
  type ReceiverLike,
  type ReceiverPaths,
  type ReceiverPathsSetup,
  type RequestLike,
  RoundTripMeter,
  type RoundTrips,
  type SharedReceiverOptions,
  type StubService,
  tallyPaths,
} from './round-trips.js';
export { startVerificationAt } from './start-verification.js';
export { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
export { sealedTokenCount, tokenLeaks } from './token-leaks.js';
export { useRedisServer } from './use-redis-server.js';
export { waitFor } from './wait-for.js';
