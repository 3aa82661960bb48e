import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import { freePort, startVerificationAt } from '@faceverify/test-support';
import { afterEach, expect, it } from 'vitest';

const RECIPES = fileURLToPath(new URL('..', import.meta.url));

let emulator: Emulator | undefined;
let recipe: ChildProcess | undefined;

afterEach(async () => {
  if (recipe && recipe.exitCode === null) {
    const exited = once(recipe, 'exit');
    recipe.kill();
    await exited;
  }
  recipe = undefined;
  await emulator?.close();
  emulator = undefined;
});

/**
 * Runs a recipe file as its reader would (`node --import tsx`), with the emulator's variables,
 * and resolves on the first line of its output that contains `text`. Rejects with the output
 * when it exits before printing it.
 */
function runRecipe(name: string, env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    ['--conditions=@faceverify/source', '--import', 'tsx', `src/${name}.ts`],
    { cwd: RECIPES, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  recipe = child;
  let output = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  const onOutput = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    for (const waiter of waiters.filter((w) => output.includes(w.text))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  child.stdout.on('data', onOutput);
  child.stderr.on('data', onOutput);
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(
      `src/${name}.ts exited (${code}) before it printed what was awaited:\n${output}`,
    );
  });
  exited.catch(() => undefined);
  return {
    printed: (text: string) =>
      Promise.race([
        new Promise<void>((resolve) => {
          waiters.push({ text, resolve });
          onOutput(Buffer.alloc(0));
        }),
        exited,
      ]),
  };
}

it.each(['express', 'koa', 'hono', 'fastify', 'nestjs'])(
  'the %s recipe starts a verification and receives its signed webhook from the emulator',
  async (name) => {
    emulator = await startEmulator({ seed: `recipe-${name}` });
    const port = await freePort();
    const appUrl = `http://127.0.0.1:${port}`;
    emulator.setCallbackUrl(`${appUrl}/webhooks/verification`);
    const running = runRecipe(name, {
      PORT: String(port),
      FACEVERIFY_BASE_URL: emulator.url,
      FACEVERIFY_API_KEY: emulator.apiKey,
      FACEVERIFY_WEBHOOK_SECRET: emulator.signingSecret,
    });
    await running.printed(`listening on ${appUrl}`);

    const { verifyUrl, token } = await startVerificationAt(appUrl, 'alice');
    expect(verifyUrl.startsWith(`${emulator.url}/verify/`)).toBe(true);

    await emulator.completeSession(token, 'verified');
    await running.printed('verification of alice: verified');
    await emulator.webhooksSettled();
    expect(emulator.stats().webhooks.delivered).toBe(1);
  },
);
