// The servers alone, without Vitest's hooks: for benchmarks and scripts run outside a test
// runner (under tsx).
export { type PostgresServer, startPostgresServer } from './postgres-server.js';
export { freePort, type RedisServer, startRedisServer } from './redis-server.js';
