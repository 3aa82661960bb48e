export {
  type PostgresServer,
  postgresBinDir,
  requirePostgresServer,
  type StartPostgresOptions,
  startPostgresServer,
  usePostgresServer,
} from './postgres-server.js';
export {
  freePort,
  type RedisServer,
  requireRedisServer,
  type StartOptions,
  startRedisServer,
  useRedisServer,
} from './redis-server.js';
