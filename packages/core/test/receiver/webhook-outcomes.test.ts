import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebhookPipeline } from '../../src/adapter/webhook-pipeline.js';
import {
  createReceiver,
  type Logger,
  MemoryStore,
  type Receiver,
  type ReceiverHealth,
  type ReceiverOptions,
  type ReceiverTelemetry,
} from '../../src/index.js';
import {
  type AnswerName,
  type AnswerRow,
  WEBHOOK_ANSWERS,
} from '../../src/receiver/webhook/answers.js';
import type { AttachAndLeaseOptions } from '../../src/store/index.js';
import { createTestClock, fixturePayload, signedDelivery } from '../../src/testing/index.js';
import { type Reply, type ScriptedServer, startScriptedServer } from '../client/scripted-server.js';

// The answer table, row by row: each row is made to happen, and its answer is the table's:
// status, body and headers, the log line at its level, its counter in health(), and the
// telemetry count under its name.

const SECRET = 'whsec_outcomes_0123456789';
const USER = 'outcome_user';
let service: ScriptedServer | undefined;

/** What one scenario wrote: its log lines, and the answers telemetry counted. */
let seen: { lines: { level: keyof Logger; message: string }[]; answered: [number, string][] };

beforeEach(() => {
  seen = { lines: [], answered: [] };
});

afterEach(async () => {
  await service?.close();
  service = undefined;
});

const logger: Required<Logger> = {
  debug: (message) => seen.lines.push({ level: 'debug', message }),
  info: (message) => seen.lines.push({ level: 'info', message }),
  warn: (message) => seen.lines.push({ level: 'warn', message }),
  error: (message) => seen.lines.push({ level: 'error', message }),
};

const telemetry: ReceiverTelemetry = {
  attach: () => undefined,
  span: (_name, work) => work(),
  webhookAnswered: (status, answer) => {
    seen.answered.push([status, answer]);
  },
  delivered: () => undefined,
  handlerRan: () => undefined,
  undeliverable: () => undefined,
  polled: () => undefined,
  rateLimitWaited: () => undefined,
};

const { event: _e, extra: _x, ...RESULT } = fixturePayload({ external_user_id: USER });
const sessionReply = (status: 'pending' | 'verified'): Reply => ({
  status: 200,
  json: {
    token: 'tok',
    status,
    external_user_id: USER,
    ...(status === 'verified' ? { result: RESULT } : {}),
  },
});

async function setUp(options: Partial<ReceiverOptions> & { reply?: () => Reply } = {}) {
  const { reply, ...receiverOptions } = options;
  const clock = createTestClock(Date.UTC(2030, 0, 1));
  if (reply) service = await startScriptedServer(reply, clock.now);
  const receiver = createReceiver({
    secret: SECRET,
    client: service ? { apiKey: 'fv_test_outcomes', baseUrl: service.url } : false,
    store: new MemoryStore(),
    clock,
    logger,
    telemetry,
    ...receiverOptions,
  });
  receiver.on('error', () => undefined);
  const delivery = await signedDelivery(fixturePayload({ external_user_id: USER }), {
    secret: SECRET,
  });
  return { receiver, clock, delivery };
}

type Answer = { status: number; headers: Record<string, string>; body: string };

/** An answer, and the Receiver that gave it (none while none could be built). */
interface Answered {
  answer: Answer;
  receiver?: Receiver<unknown>;
}

const ACME = { secret: SECRET, client: { apiKey: 'fv_test_acme', baseUrl: 'http://127.0.0.1:9' } };

/** A Receiver of several accounts, and a webhook signed with the secret of account `acme`. */
async function setUpAccounts(accounts: NonNullable<ReceiverOptions['accounts']>) {
  const receiver = createReceiver({
    accounts,
    tokenKeys: ['outcomes-token-key-0123456789abcdef'],
    store: new MemoryStore(),
    clock: createTestClock(Date.UTC(2030, 0, 1)),
    logger,
    telemetry,
  });
  receiver.on('error', () => undefined);
  const delivery = await signedDelivery(fixturePayload({ external_user_id: USER }), {
    secret: SECRET,
  });
  return { receiver, delivery };
}

/** A signed request from `setUp` with its body replaced by what the adapter could not read. */
async function unread(
  body: Exclude<Parameters<ReturnType<typeof createReceiver>['receive']>[0]['body'], Uint8Array>,
) {
  const { receiver, delivery } = await setUp();
  return { receiver, answer: await receiver.receive({ ...delivery, body }) };
}

/** How each answer is made to happen; what it returns is checked against the table. */
const scenarios: Record<AnswerName, () => Promise<Answered>> = {
  async delivered() {
    const { receiver, delivery } = await setUp();
    receiver.on('verification.completed', () => undefined);
    return { receiver, answer: await receiver.receive(delivery) };
  },
  async duplicate() {
    const { receiver, delivery } = await setUp();
    await receiver.receive(delivery);
    return { receiver, answer: await receiver.receive(delivery) };
  },
  async ignored() {
    const { receiver } = await setUp();
    const other = await signedDelivery(
      { ...fixturePayload(), event: 'verification.started' },
      {
        secret: SECRET,
      },
    );
    return { receiver, answer: await receiver.receive(other) };
  },
  async untracked() {
    const { receiver, delivery } = await setUp({ reply: () => sessionReply('verified') });
    return { receiver, answer: await receiver.receive(delivery) };
  },
  async contradicted() {
    const { receiver, delivery } = await setUp({ reply: () => sessionReply('pending') });
    await receiver.track('tok_contradicted', USER);
    return { receiver, answer: await receiver.receive(delivery) };
  },
  async processing() {
    const { receiver, delivery, clock } = await setUp();
    let release: (() => void) | undefined;
    receiver.on(
      'verification.completed',
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
    );
    const answer = receiver.receive(delivery);
    // The handler runs once the result is stored (sealed first, a few turns in): the ack
    // deadline is set by then, and passes while the handler still runs.
    while (!release) await new Promise((resolve) => setImmediate(resolve));
    await clock.advance(4_000);
    const processing = await answer;
    release?.();
    return { receiver, answer: processing };
  },
  async erased() {
    // The user is erased on another instance between this one's lease and its delivery:
    // the lease, granted long enough ago to be checked, cannot be renewed, and no record is
    // left for anyone to deliver.
    class ErasedMeanwhile extends MemoryStore {
      override async attachAndLease(options: AttachAndLeaseOptions) {
        const outcome = await super.attachAndLease(options);
        await this.forgetUser({ externalUserId: outcome.leased!.externalUserId, now: options.now });
        const lease = { owner: options.owner, until: options.now };
        return { ...outcome, leased: { ...outcome.leased!, lease } };
      }
    }
    const { receiver, delivery } = await setUp({
      store: new ErasedMeanwhile(),
      reply: () => sessionReply('pending'),
      confirmWebhooks: false,
    });
    let delivered = 0;
    receiver.on('verification.completed', () => {
      delivered += 1;
    });
    await receiver.track('tok_erased', USER);
    const answer = await receiver.receive(delivery);
    expect(delivered).toBe(0);
    return { receiver, answer };
  },
  async superseded() {
    // The user failed a first session, started a second and passed it (confirmed on its return
    // page); the first session's webhook comes late.
    const { receiver, clock } = await setUp({
      reply: () => sessionReply('verified'),
      confirmWebhooks: false,
      supersededResults: 'skip',
    });
    const seenResults: string[] = [];
    receiver.on('verification.completed', (event) => {
      seenResults.push(event.data.status);
    });
    await receiver.track('tok_first', USER);
    await clock.advance(60_000);
    await receiver.track('tok_second', USER);
    await receiver.confirm('tok_second');
    const late = await signedDelivery(
      fixturePayload({ external_user_id: USER, status: 'failed', livenessPassed: false }),
      { secret: SECRET },
    );
    const answer = await receiver.receive(late);
    expect(seenResults).toEqual(['verified']);
    return { receiver, answer };
  },
  async queued() {
    const { receiver, delivery } = await setUp({
      reply: () => ({
        status: 429,
        json: { success: false, message: 'slow down', retry_after_ms: 5_000 },
      }),
    });
    await receiver.track('tok_queued', USER);
    return { receiver, answer: await receiver.receive(delivery) };
  },
  async settling() {
    const { receiver, delivery } = await setUp({ reply: () => sessionReply('pending') });
    await receiver.track('tok_settling_1', USER);
    await receiver.track('tok_settling_2', USER);
    return { receiver, answer: await receiver.receive(delivery) };
  },
  async handler_failed() {
    const { receiver, delivery } = await setUp();
    receiver.on('verification.completed', () => {
      throw new Error('database down');
    });
    return { receiver, answer: await receiver.receive(delivery) };
  },
  async method_not_allowed() {
    const { receiver, delivery } = await setUp();
    return { receiver, answer: await receiver.receive({ ...delivery, method: 'GET' }) };
  },
  async payload_too_large() {
    const { receiver, delivery } = await setUp({ maxBodyBytes: 16 });
    return { receiver, answer: await receiver.receive(delivery) };
  },
  body_unreadable: () => unread({ kind: 'unreadable', reason: 'The body ended early.' }),
  body_timeout: () => unread({ kind: 'timeout', afterMs: 10_000 }),
  raw_body_unavailable: () => unread({ kind: 'unavailable', hint: 'Mount it first.' }),
  async receiver_not_configured() {
    // No secret given and none in the environment: the middleware has no Receiver to build.
    const saved = process.env.FACEVERIFY_WEBHOOK_SECRET;
    delete process.env.FACEVERIFY_WEBHOOK_SECRET;
    try {
      // The adapter answers on what the options name: their logger and telemetry.
      let written: Answer | undefined;
      // A platform of one request, mounted on its route, whose answer is kept here.
      const pipeline = new WebhookPipeline<undefined, undefined>(
        {
          method: () => 'POST',
          headers: () => ({}),
          readBody: () => Promise.resolve(new Uint8Array()),
          respond: (_response, answer) => {
            written = answer;
          },
        },
        { logger, telemetry },
      );
      await pipeline.handle(undefined, undefined, undefined);
      return { answer: written! };
    } finally {
      if (saved !== undefined) process.env.FACEVERIFY_WEBHOOK_SECRET = saved;
    }
  },
  async account_missing() {
    const { receiver, delivery } = await setUpAccounts({ acme: ACME });
    return { receiver, answer: await receiver.receive(delivery) };
  },
  async account_unknown() {
    const { receiver, delivery } = await setUpAccounts({ acme: ACME });
    return { receiver, answer: await receiver.receive({ ...delivery, account: 'nobody' }) };
  },
  async account_unavailable() {
    const { receiver, delivery } = await setUpAccounts({
      resolve: () => Promise.reject(new Error('secret manager down')),
    });
    return { receiver, answer: await receiver.receive({ ...delivery, account: 'acme' }) };
  },
  async signature_missing() {
    const { receiver, delivery } = await setUp();
    return { receiver, answer: await receiver.receive({ ...delivery, headers: {} }) };
  },
  async signature_invalid() {
    const { receiver, delivery } = await setUp();
    return {
      receiver,
      answer: await receiver.receive({
        ...delivery,
        headers: { 'x-webhook-signature': '00'.repeat(32) },
      }),
    };
  },
  async payload_invalid() {
    const { receiver } = await setUp();
    const { external_user_id: _missing, ...invalid } = fixturePayload();
    return {
      receiver,
      answer: await receiver.receive(await signedDelivery(invalid, { secret: SECRET })),
    };
  },
  async store_unavailable() {
    const store = new MemoryStore();
    store.remember = () => Promise.reject(new Error('connection refused'));
    const { receiver, delivery } = await setUp({ store });
    return { receiver, answer: await receiver.receive(delivery) };
  },
  async internal_error() {
    // A defect: here, headers that throw when read.
    const { receiver, delivery } = await setUp();
    const headers = new Proxy(delivery.headers, {
      get() {
        throw new Error('unreadable headers');
      },
    });
    return { receiver, answer: await receiver.receive({ ...delivery, headers }) };
  },
};

/** A text of the table as a pattern: `{detail}` stands for what the request fills in. */
function pattern(text: string): RegExp {
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace('\\{detail\\}', '.+')}$`);
}

const ROWS = Object.entries(WEBHOOK_ANSWERS) as [AnswerName, AnswerRow][];
/** What rows count toward in health(): `webhooks.rejected` has one count of each. */
const COUNTED = [...new Set(ROWS.flatMap(([, row]) => (row.counts ? [row.counts] : [])))];

describe('every request on the webhook path has one answer, a row of one table', () => {
  it.each(ROWS.map(([name]) => name))('%s', async (name) => {
    const row: AnswerRow = WEBHOOK_ANSWERS[name];
    const { answer, receiver } = await scenarios[name]();
    expect(answer.status).toBe(row.status);
    expect(answer.body).toMatch(pattern(JSON.stringify(row.body)));
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    for (const [header, value] of Object.entries(row.headers ?? {})) {
      expect(answer.headers[header]).toBe(value);
    }

    // Its log line, once, at its level; no other row's line.
    for (const [other, { log }] of ROWS) {
      if (!log) continue;
      const lines = seen.lines.filter((line) => pattern(log.message).test(line.message));
      if (other !== name) expect(lines, `${other}'s line`).toEqual([]);
      else expect(lines.map((line) => line.level)).toEqual([log.level]);
    }

    // Counted by telemetry under its name, once (the duplicate's first delivery came before).
    expect(seen.answered.at(-1)).toEqual([row.status, name]);
    expect(seen.answered.filter(([, answer]) => answer === name)).toHaveLength(1);

    // Its counter in health(), and no other row's; a row without one moves none. Without a
    // Receiver (receiver_not_configured) there is nothing to count toward.
    if (!receiver) {
      expect(row.counts).toBeUndefined();
      return;
    }
    const { rejected } = (await receiver.health()).webhooks;
    for (const kind of COUNTED) {
      const count = rejected[kind as keyof ReceiverHealth['webhooks']['rejected']];
      expect(count, kind).toBe(kind === row.counts ? 1 : 0);
    }
  });

  it('docs/guarantees.md lists each outcome of a signed webhook with its status and body', () => {
    const doc = readFileSync(new URL('../../../../docs/guarantees.md', import.meta.url), 'utf8');
    for (const [name, row] of Object.entries(WEBHOOK_ANSWERS) as [AnswerName, AnswerRow][]) {
      if ('error' in row.body && name !== 'handler_failed') continue;
      const line = doc.split('\n').find((text) => text.startsWith(`| \`${name}\``));
      expect(line, `a row for ${name}`).toBeDefined();
      expect(line).toContain(`| ${row.status} `);
      expect(line).toContain(`\`${JSON.stringify(row.body)}\``);
    }
  });

  it('docs/guarantees.md names the refusals decided before the signature, and only those', () => {
    const doc = readFileSync(new URL('../../../../docs/guarantees.md', import.meta.url), 'utf8');
    const sentence = /Requests refused before the signature is known \(([^)]*)\)/.exec(doc)?.[1];
    const named = [...(sentence ?? '').matchAll(/`(\d{3}) (\w+)`/g)].map((m) => `${m[1]} ${m[2]}`);
    const before = (Object.values(WEBHOOK_ANSWERS) as AnswerRow[])
      .filter((row) => row.stage === 'before the signature' && 'error' in row.body)
      .map((row) => `${row.status} ${(row.body as { error: string }).error}`);
    expect(named.sort()).toEqual(before.sort());
  });

  it('docs/troubleshooting.md lists each refusal with its status and code', () => {
    const doc = readFileSync(
      new URL('../../../../docs/troubleshooting.md', import.meta.url),
      'utf8',
    );
    for (const row of Object.values(WEBHOOK_ANSWERS) as AnswerRow[]) {
      if (!('error' in row.body)) continue;
      const line = doc.split('\n').find((text) => text.includes(`\`${row.body.error}\``));
      expect(line, `a row for ${row.body.error}`).toBeDefined();
      expect(line).toMatch(new RegExp(`^\\| ${row.status}\\s`));
    }
  });
});
