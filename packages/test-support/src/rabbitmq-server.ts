import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandPath, missingServer, startLoggedServer } from './logged-server.js';
import { freePort } from './redis-server.js';

/** A RabbitMQ node started for the tests: its own name, ports and folder. */
export interface RabbitMqServer {
  readonly port: number;
  /** `amqp://guest:guest@127.0.0.1:<port>` (guest may connect over loopback). */
  readonly url: string;
  readonly dir: string;
  /** Stops the node (SIGTERM); with `remove` (the default) deletes its folder too. */
  stop(options?: { remove?: boolean }): Promise<void>;
}

/** Options of `startRabbitMqServer`. */
export interface StartRabbitMqOptions {
  /** Reuse a port, to restart a node where its clients expect it. Default: a free port. */
  port?: number;
  /** The folder of an earlier node of this run, to restart it with its durable queues. */
  dir?: string;
}

// Debian's /usr/sbin/rabbitmq-server switches to the rabbitmq user and writes to /var/log;
// the script it wraps runs the node as whoever starts it, configured by the environment.
const DEBIAN_SCRIPT = '/usr/lib/rabbitmq/bin/rabbitmq-server';

function rabbitMqScript(): string | undefined {
  if (existsSync(DEBIAN_SCRIPT)) return DEBIAN_SCRIPT;
  return commandPath('rabbitmq-server');
}

/** Fails the whole run when RabbitMQ is missing: these tests never skip. */
export function requireRabbitMqServer(): string {
  const script = rabbitMqScript();
  if (!script) throw missingServer('rabbitmq-server', 'rabbitmq-server');
  return script;
}

/**
 * Starts a RabbitMQ node with no plugins on 127.0.0.1: the node's name, its AMQP and
 * distribution ports, its database, logs and Erlang cookie are its own, so several test
 * files run nodes side by side. Erlang's port mapper (epmd), which the first node starts,
 * is shared and stays running, as it does for every Erlang node. Startup takes 5-10 s.
 */
export async function startRabbitMqServer(
  options: StartRabbitMqOptions = {},
): Promise<RabbitMqServer> {
  const script = requireRabbitMqServer();
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'faceverify-rabbitmq-'));
  const port = options.port ?? (await freePort());
  const distPort = await freePort();
  const plugins = join(dir, 'enabled_plugins');
  if (!existsSync(plugins)) writeFileSync(plugins, '[].\n');
  const server = await startLoggedServer('rabbitmq-server', script, [], {
    env: {
      ...process.env,
      HOME: dir,
      RABBITMQ_NODENAME: `faceverify-${port}@localhost`,
      RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
      RABBITMQ_NODE_PORT: String(port),
      RABBITMQ_DIST_PORT: String(distPort),
      RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
      RABBITMQ_LOG_BASE: join(dir, 'log'),
      RABBITMQ_LOGS: '-',
      RABBITMQ_ENABLED_PLUGINS_FILE: plugins,
      RABBITMQ_PLUGINS_EXPAND_DIR: join(dir, 'plugins'),
      RABBITMQ_CONFIG_FILE: join(dir, 'rabbitmq'),
      RABBITMQ_ADVANCED_CONFIG_FILE: join(dir, 'advanced.config'),
    },
    ready: /Server startup complete/,
    timeoutMs: 60_000,
  });
  return {
    port,
    url: `amqp://guest:guest@127.0.0.1:${port}`,
    dir,
    async stop({ remove = true } = {}) {
      await server.stop();
      if (remove) rmSync(dir, { recursive: true, force: true });
    },
  };
}
