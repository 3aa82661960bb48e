import { defineConfig } from 'tsdown';
import { libraryBuild } from '../../build/library-config.ts';

// One entry per sink, so importing one never loads another's client.
export default defineConfig(
  libraryBuild({
    index: 'src/index.ts',
    redis: 'src/redis.ts',
    nats: 'src/nats.ts',
    rabbitmq: 'src/rabbitmq.ts',
    postgres: 'src/postgres.ts',
    http: 'src/http.ts',
  }),
);
