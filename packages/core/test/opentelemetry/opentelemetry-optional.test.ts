import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { expect, it } from 'vitest';
import { createReceiver } from '../../src/index.js';
import { openTelemetry } from '../../src/opentelemetry/index.js';
import { fixturePayload, signedDelivery } from '../../src/testing/index.js';

// @opentelemetry/api is an optional peer: the main entry must load where it is not installed
// (Workers, Bun, Deno), so only the `opentelemetry` entry may import it.

/** The files a bundler pulls in for `entry`. */
async function inputsOf(entry: string): Promise<string[]> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'neutral',
    format: 'esm',
    conditions: ['@faceverify/source', 'node'],
    external: ['node:*'],
    logLevel: 'silent',
  });
  return Object.keys(result.metafile.inputs);
}

it('the main entry never imports @opentelemetry/api; the opentelemetry entry does', async () => {
  const main = await inputsOf('../../src/index.ts');
  expect(main.some((input) => input.includes('src/receiver/create-receiver.ts'))).toBe(true);
  expect(main.filter((input) => input.includes('@opentelemetry'))).toEqual([]);
  const subpath = await inputsOf('../../src/opentelemetry/index.ts');
  expect(subpath.some((input) => input.includes('@opentelemetry/api'))).toBe(true);
});

it('with the API and no SDK, a Receiver with telemetry answers as one without', async () => {
  const secret = 'whsec_telemetry_without_an_sdk_0123';
  const plain = createReceiver({ secret, client: false, logger: false });
  const measured = createReceiver({
    secret,
    client: false,
    logger: false,
    telemetry: openTelemetry(),
  });
  const delivered: string[] = [];
  for (const receiver of [plain, measured]) {
    receiver.on('verification.completed', (event) => {
      delivered.push(event.data.external_user_id);
    });
    const delivery = await signedDelivery(fixturePayload({ external_user_id: 'noop' }), { secret });
    const answer = await receiver.receive({
      method: 'POST',
      headers: delivery.headers,
      body: delivery.body,
    });
    expect(answer.status).toBe(200);
  }
  expect(delivered).toEqual(['noop', 'noop']);
});
