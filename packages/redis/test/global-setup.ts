import { startRedisServer } from '@faceverify/test-support';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of the redis-server shared by the test files of this project. */
    redisUrl: string;
  }
}

/** Starts one redis-server for the run (no persistence, temporary dir) and stops it after. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startRedisServer();
  project.provide('redisUrl', server.url);
  return () => server.stop();
}
