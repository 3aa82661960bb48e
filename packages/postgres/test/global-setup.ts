import { startPostgresServer } from '@faceverify/test-support';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection string (password included) of a database on the shared server. */
    postgresUrl: string;
  }
}

/** Starts one PostgreSQL cluster for the run, with one database, and removes it after. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgresServer();
  const database = await server.createDatabase('faceverify_test');
  project.provide('postgresUrl', server.url(database));
  return () => server.stop();
}
