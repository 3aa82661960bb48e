import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  asUser,
  type PostgresServer,
  requirePostgresServer,
  serverUser,
  startPostgresServer,
} from './postgres-server.js';

/**
 * Starts a streaming replica of `primary`: `pg_basebackup -R` into a new temporary folder,
 * then a server of its own on it. It streams from `port` on 127.0.0.1 (default: the
 * primary's; pass a proxy's to hold its WAL back). Promote it with `SELECT pg_promote()`.
 */
export async function startPostgresReplica(
  primary: PostgresServer,
  { port = primary.port }: { port?: number } = {},
): Promise<PostgresServer> {
  const bin = requirePostgresServer();
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), 'faceverify-pg-replica-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const [command, args] = asUser(user, join(bin, 'pg_basebackup'), [
    '-D',
    dir,
    '-R',
    '-X',
    'stream',
    '-c',
    'fast',
    '-d',
    `host=127.0.0.1 port=${port} user=postgres password=${primary.password}`,
  ]);
  try {
    // Not execFileSync: the primary may be behind a proxy in this very process.
    await promisify(execFile)(command, args);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return startPostgresServer({ dir, password: primary.password });
}
