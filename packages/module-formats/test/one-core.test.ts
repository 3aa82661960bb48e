import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

interface Findings {
  configurationError: Record<string, boolean>;
  storeErrors: Record<string, boolean>;
  apiError: { serviceStatus: number; same: boolean };
  mountOrderHint: { status: number; lines: string[] };
  configurationErrorCopies?: number;
}

/**
 * Runs a fixture in a plain Node process, as an app would: no Vitest, no source condition,
 * so every `@faceverify/*` import resolves to the built files a user installs.
 */
async function findings(fixture: string): Promise<Findings> {
  const { NODE_OPTIONS: _, ...env } = process.env;
  const { stdout, stderr } = await run(process.execPath, [`${FIXTURES}${fixture}`], {
    env,
  }).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(
      `${fixture} failed (run \`pnpm build\` first: it loads the built packages):\n${error.stderr}`,
    );
  });
  expect(stderr).toBe('');
  return JSON.parse(stdout) as Findings;
}

const PACKAGES = [
  'core/adapter',
  'express',
  'koa',
  'hono',
  'fetch',
  'fastify',
  'redis',
  'postgres',
  'postgres/pglite',
  'emulator',
];

describe.each([
  ['require() from CommonJS', 'load-with-require.cjs'],
  ['import from ESM', 'load-with-import.mjs'],
])('every public package loaded with %s', (name, fixture) => {
  it(`shares core's error classes and logs the mount-order hint once [${name}]`, async () => {
    const found = await findings(fixture);
    expect(found.configurationError).toEqual(
      Object.fromEntries(PACKAGES.map((name) => [name, true])),
    );
    expect(found.storeErrors).toEqual({ redis: true, postgres: true, cloudflare: true });
    expect(found.apiError).toEqual({ serviceStatus: 401, same: true });
    expect(found.mountOrderHint.status).toBe(500);
    expect(found.mountOrderHint.lines).toHaveLength(1);
    expect(found.mountOrderHint.lines[0]).toContain('express.json({ verify: captureRawBody })');
  });
});

it('a CommonJS app loads one file of core that declares ConfigurationError', async () => {
  expect((await findings('load-with-require.cjs')).configurationErrorCopies).toBe(1);
});
