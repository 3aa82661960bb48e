import { expect } from 'vitest';
import type { Fixture } from './fixture.js';
import { type Answer, readAnswer } from './http/answer.js';
import {
  type AppSpec,
  type BodyParserSetup,
  type ConformanceTarget,
  DEFAULT_WEBHOOK_PATH,
  type MountStyle,
  type RunningApp,
  type WebhookOptionsUnderTest,
} from './target.js';

/** Where route-mounted cases register the webhook: deliberately not the default path. */
export const ROUTE_PATH = '/hooks/faceverify';

export interface SpecInput {
  mount: MountStyle;
  options?: WebhookOptionsUnderTest;
  bodyParser?: BodyParserSetup;
  /** With `mount: 'route'`: the route's path instead of `ROUTE_PATH` (`ACCOUNT_ROUTE_PATH`). */
  routePath?: string;
  /** The adapter reads the account from this header (see `AppSpec.accountHeader`). */
  accountHeader?: string;
}

/** Request options fetch accepts for a streamed body. */
export type SendInit = RequestInit & { duplex?: 'half' };

export interface Delivery {
  body: Uint8Array;
  headers: Record<string, string>;
}

export interface AppUnderTest extends RunningApp {
  fixture: Fixture;
  webhookPath: string;
  /** fetch on the app; the answer is read to the end and kept for the leak check. */
  send(path: string, init?: SendInit): Promise<Answer>;
  /** POSTs exact bytes (with Content-Length) to the webhook path. */
  post(delivery: Delivery): Promise<Answer>;
  /** POSTs exact bytes (with Content-Length) to another path. */
  postTo(path: string, delivery: Delivery): Promise<Answer>;
  /** Answers obtained outside `send`, for the leak check. */
  record(answer: Answer): Answer;
}

function specFor(input: SpecInput, fixture: Fixture): AppSpec {
  const options = input.options ?? {};
  const webhookPath =
    input.mount === 'route'
      ? (input.routePath ?? ROUTE_PATH)
      : (options.path ?? DEFAULT_WEBHOOK_PATH);
  return {
    receiver: fixture.receiver,
    mount: input.mount,
    webhookPath,
    options,
    bodyParser: input.bodyParser ?? 'none',
    ...(input.accountHeader === undefined ? {} : { accountHeader: input.accountHeader }),
  };
}

function assertNoSecretLeaked(fixture: Fixture, answers: Answer[]): void {
  const texts = [
    ...answers.map((answer) => answer.text),
    ...fixture.logs.map((line) => `${line.message} ${JSON.stringify(line.fields)}`),
  ];
  for (const secret of fixture.secrets) {
    const leak = texts.find((text) => text.includes(secret));
    expect(leak, 'a secret appeared in an answer or a log line').toBe(undefined);
  }
}

/**
 * Starts the target's app for one case, runs `body` against it, then closes it and checks
 * that no answer and no log line contained a secret.
 */
export async function withApp(
  target: ConformanceTarget,
  input: SpecInput,
  fixture: Fixture,
  body: (app: AppUnderTest) => Promise<void>,
): Promise<void> {
  const spec = specFor(input, fixture);
  const running = await target.start(spec);
  const answers: Answer[] = [];
  const record = (answer: Answer) => {
    answers.push(answer);
    return answer;
  };
  const send = async (path: string, init?: SendInit) =>
    record(await readAnswer(await fetch(`${running.url}${path}`, init)));
  const postTo = (path: string, delivery: Delivery) =>
    // A copy on its own ArrayBuffer: what fetch's BodyInit accepts.
    send(path, { method: 'POST', headers: delivery.headers, body: new Uint8Array(delivery.body) });
  const app: AppUnderTest = {
    ...running,
    fixture,
    webhookPath: spec.webhookPath,
    send,
    post: (delivery) => postTo(spec.webhookPath, delivery),
    postTo,
    record,
  };
  try {
    await body(app);
  } finally {
    await running.close();
  }
  assertNoSecretLeaked(fixture, answers);
}

/** Asserts a Receiver error answer: status, JSON `{ error: code, message }`, no caching. */
export function assertError(answer: Answer, status: number, code: string): string {
  expect(answer.status, `status (body: ${answer.text})`).toBe(status);
  expect(answer.json?.error, `error code (body: ${answer.text})`).toBe(code);
  expect(answer.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  const message = answer.json?.message;
  expect(typeof message, 'the error carries a message').toBe('string');
  return message as string;
}

/** Asserts the Receiver's acknowledgement of an accepted webhook. */
export function assertAccepted(answer: Answer, extra: Record<string, unknown> = {}): void {
  expect(answer.status, `status (body: ${answer.text})`).toBe(200);
  expect(answer.json).toStrictEqual({ received: true, ...extra });
  expect(answer.headers.get('content-type') ?? '').toMatch(/^application\/json/);
}
