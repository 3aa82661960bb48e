import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandPath, missingServer, startLoggedServer } from './logged-server.js';
import { freePort } from './redis-server.js';

/** A nats-server with JetStream, started for the tests in a folder of its own. */
export interface NatsServer {
  readonly port: number;
  /** `nats://127.0.0.1:<port>`. */
  readonly url: string;
  /** JetStream's storage folder. */
  readonly dir: string;
  /** Stops the server (SIGTERM); with `remove` (the default) deletes its folder too. */
  stop(options?: { remove?: boolean }): Promise<void>;
}

/** Options of `startNatsServer`. */
export interface StartNatsOptions {
  /** Reuse a port, to restart a server where its clients expect it. Default: a free port. */
  port?: number;
  /** JetStream's folder of an earlier server of this run, to restart it with its streams. */
  dir?: string;
}

/** Fails the whole run when nats-server is missing: these tests never skip. */
export function requireNatsServer(): void {
  if (!commandPath('nats-server')) throw missingServer('nats-server', 'nats-server');
}

/** Starts `nats-server -js` on 127.0.0.1, its streams stored in `dir`. */
export async function startNatsServer(options: StartNatsOptions = {}): Promise<NatsServer> {
  requireNatsServer();
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'faceverify-nats-'));
  const port = options.port ?? (await freePort());
  const server = await startLoggedServer(
    'nats-server',
    'nats-server',
    ['-js', '-sd', dir, '-a', '127.0.0.1', '-p', String(port)],
    { ready: /Server is ready/, timeoutMs: 15_000 },
  );
  return {
    port,
    url: `nats://127.0.0.1:${port}`,
    dir,
    async stop({ remove = true } = {}) {
      await server.stop();
      if (remove) rmSync(dir, { recursive: true, force: true });
    },
  };
}
