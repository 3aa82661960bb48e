export {
  freePort,
  type RedisServer,
  requireRedisServer,
  type StartOptions,
  startRedisServer,
  useRedisServer,
} from './redis-server.js';
