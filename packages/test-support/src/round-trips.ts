/**
 * Store round trips counted in turn, exactly: requests in flight together (a pipeline, calls
 * made side by side) are one round trip; a request made after an answer arrived is one more.
 * A request's round trip is one more than the latest round trip already answered when it was
 * sent. On a connection that sends one request at a time (node-postgres queues its queries),
 * a request made while the previous one is unanswered goes out after it: one more again.
 * Nothing here reads a clock: the counts follow only the order of sends and answers.
 */
export class RoundTripMeter {
  private answered = 0;
  private sent: { name: string; trip: number }[] = [];
  private readonly lastOn = new WeakMap<object, { trip: number; answered: boolean }>();
  private inFlight = 0;
  private readonly onIdle: (() => void)[] = [];

  /**
   * Notes a request sent now, on `connection` when requests on it are sent one at a time.
   * Call the function returned when its answer (or its failure) arrives.
   */
  send(name: string, connection?: object): () => void {
    let trip = this.answered + 1;
    const previous = connection && this.lastOn.get(connection);
    if (previous && !previous.answered) trip = Math.max(trip, previous.trip + 1);
    const request = { trip, answered: false };
    if (connection) this.lastOn.set(connection, request);
    this.sent.push({ name, trip });
    this.inFlight++;
    return () => {
      if (request.answered) return;
      request.answered = true;
      this.answered = Math.max(this.answered, trip);
      if (--this.inFlight === 0) for (const idle of this.onIdle.splice(0)) idle();
    };
  }

  /**
   * Resolves once every request sent has its answer and none was sent after it by the time
   * pending callbacks ran: work a step started and did not wait for (a duplicate's user
   * lookup, which may ask again with more keys once answered) is counted with that step,
   * never with whichever step comes next.
   */
  async settled(): Promise<void> {
    for (;;) {
      // A macrotask (setTimeout: workerd has no setImmediate) lets ready callbacks send theirs.
      await new Promise<void>((resolve) => setTimeout(resolve, 0));
      if (this.inFlight === 0) return;
      await new Promise<void>((resolve) => this.onIdle.push(resolve));
    }
  }

  /** What was sent since the last `take()`, and starts counting again from zero. */
  take(): RoundTrips {
    const sent = this.sent;
    this.sent = [];
    this.answered = 0;
    return {
      inTurn: sent.reduce((max, { trip }) => Math.max(max, trip), 0),
      requests: sent.length,
      sequence: sent.map(({ name, trip }) => `${trip}:${name}`),
    };
  }
}

/** What one step sent to its store. */
export interface RoundTrips {
  /** Round trips waited for one after another. */
  inTurn: number;
  /** Requests (commands, statements, batches) sent. */
  requests: number;
  /** Each request as `<round trip>:<name>`, in the order sent. */
  sequence: string[];
}

/** A webhook request as a Receiver takes it. */
export interface RequestLike {
  method: string;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** The few parts of a Receiver the paths below drive. */
export interface ReceiverLike {
  track(token: string, externalUserId: string): Promise<void>;
  receive(request: RequestLike): Promise<{ status: number; body: string }>;
  sweep(): Promise<{ leased: number; delivered: number; pending: number }>;
}

/** A service that answers `getSession` from a table the paths fill in. */
export interface StubService<Payload> {
  createSession(): Promise<never>;
  getSession(token: string): Promise<{
    token: string;
    status: 'pending' | 'verified';
    result?: Payload;
    raw: unknown;
  }>;
  check(): Promise<void>;
}

/**
 * Options of every Receiver the paths drive: `service` as its API client, tracked sessions due
 * at once, no log, and leases on the store's clock where the store has one.
 */
export interface SharedReceiverOptions<Payload> {
  client: StubService<Payload>;
  pollScheduleMs: number[];
  logger: false;
  storeClock: true;
}

/** How a store's round-trip test builds what the paths need. */
export interface ReceiverPathsSetup<Payload> {
  meter: RoundTripMeter;
  /**
   * A new Receiver on the metered store, with `options` and a clock that stands still (no
   * lease lapses, no acknowledgement deadline passes, the store's clock is read once: on the
   * first step, as a process does every 30 s), and a `verification.completed` handler (run in
   * the store's transaction when `transactional`) that calls `delivered`.
   */
  receiver(setup: {
    options: SharedReceiverOptions<Payload>;
    transactional: boolean;
    delivered: (externalUserId: string) => void;
  }): ReceiverLike;
  /** A payload for `externalUserId`; `extra` goes into its `extra` field. */
  payload(externalUserId: string, extra?: Record<string, unknown>): Payload;
  /** The payload signed with the Receiver's secret, or with another one when `forged`. */
  sign(payload: Payload, forged?: boolean): Promise<RequestLike>;
  /** The handler kinds to measure: `true` for a store that runs handlers in its transaction. */
  transactional: boolean;
  /** A label unique to this run, so several runs can share one store. */
  label: string;
}

/** The round trips of each path, by name. */
export type ReceiverPaths = Record<string, RoundTrips>;

/**
 * Runs one Receiver through every path whose store round trips the tests pin, and counts each
 * on a warm Receiver (its store's clock already read; scripts, statements and pooled
 * connections already in use), except `firstStep`, the first call of a new Receiver. A second
 * Receiver on the same store only tracks the session of `webhookTrackedElsewhere`, as another
 * instance would.
 */
export async function measureReceiverPaths<Payload>(
  setup: ReceiverPathsSetup<Payload>,
): Promise<ReceiverPaths> {
  const { meter, label } = setup;
  const results = new Map<string, Payload>();
  const service: StubService<Payload> = {
    createSession: () => Promise.reject(new Error('not used')),
    getSession: async (token) => {
      const result = results.get(token);
      return result
        ? { token, status: 'verified', result, raw: {} }
        : { token, status: 'pending', raw: {} };
    },
    check: async () => {},
  };
  const delivered: string[] = [];
  const options: SharedReceiverOptions<Payload> = {
    client: service,
    pollScheduleMs: [0],
    logger: false,
    storeClock: true,
  };
  const receiverOf = (transactional: boolean) =>
    setup.receiver({ options, transactional, delivered: (user) => delivered.push(user) });
  const paths: ReceiverPaths = {};
  /** What the step just finished sent, once all of it was answered. */
  const counted = async () => {
    await meter.settled();
    return meter.take();
  };
  const user = (name: string) => `${label}_${name}`;
  const expectDelivered = (who: string) => {
    if (delivered.at(-1) !== who) throw new Error(`expected ${who} delivered, got ${delivered}`);
  };
  const status = (answer: { status: number }, expected: number, step: string) => {
    if (answer.status !== expected) throw new Error(`${step} answered ${answer.status}`);
  };

  for (const transactional of setup.transactional ? [false, true] : [false]) {
    const kind = transactional ? 'transactional' : 'plain';
    const receiver = receiverOf(transactional);
    await counted();
    // The first step of a Receiver reads the store's clock (again every 30 s).
    await receiver.track(`tok_${user(`warm_${kind}`)}`, user(`warm_${kind}`));
    const first = await counted();
    // Warm-up: every statement and script the paths use, once, so none is prepared or loaded
    // while a path is counted.
    await warmUp(receiver, setup, results, user(`warm_${kind}`));
    await counted();
    await receiver.track(`tok_${user(`warm2_${kind}`)}`, user(`warm2_${kind}`));
    const tracked = await counted();
    // Closed by polling, so that each sweep counted below finds only its own sessions due.
    results.set(`tok_${user(`warm2_${kind}`)}`, setup.payload(user(`warm2_${kind}`)));
    await receiver.sweep();
    if (!transactional) {
      paths.firstStep = first;
      paths.track = tracked;
    }

    // A webhook naming its tracked session.
    const named = user(`named_${kind}`);
    await receiver.track(`tok_${named}`, named);
    const webhook = await setup.sign(setup.payload(named, { session_token: `tok_${named}` }));
    await counted();
    status(await receiver.receive(webhook), 200, 'the webhook');
    paths[`webhookTracked_${kind}`] = await counted();
    expectDelivered(named);
    if (transactional) continue;

    // The same, for a session another instance tracked: this Receiver has read nothing of its
    // user yet (what it read before is what a store that names its keys up front is told).
    const elsewhere = user('elsewhere');
    await receiverOf(false).track(`tok_${elsewhere}`, elsewhere);
    const fromElsewhere = await setup.sign(
      setup.payload(elsewhere, { session_token: `tok_${elsewhere}` }),
    );
    await counted();
    status(
      await receiver.receive(fromElsewhere),
      200,
      'the webhook of a session tracked elsewhere',
    );
    paths.webhookTrackedElsewhere = await counted();
    expectDelivered(elsewhere);

    // The same webhook again.
    status(await receiver.receive(webhook), 200, 'the duplicate');
    paths.duplicate = await counted();

    // A webhook signed with another secret.
    status(await receiver.receive(await setup.sign(setup.payload(named), true)), 401, 'forged');
    paths.rejection = await counted();

    // A webhook matched to its session by user alone: the service confirms it first.
    const byUser = user('by_user');
    await receiver.track(`tok_${byUser}`, byUser);
    const payload = setup.payload(byUser);
    results.set(`tok_${byUser}`, payload);
    const unnamed = await setup.sign(payload);
    await counted();
    status(await receiver.receive(unnamed), 200, 'the webhook confirmed');
    paths.webhookConfirmed = await counted();
    expectDelivered(byUser);

    // A result found by polling: the sweep leases the one due session and delivers it.
    const polled = user('polled');
    await receiver.track(`tok_${polled}`, polled);
    results.set(`tok_${polled}`, setup.payload(polled));
    await counted();
    const pollSweep = await receiver.sweep();
    paths.pollDelivery = await counted();
    if (pollSweep.delivered !== 1 || pollSweep.leased !== 1) {
      throw new Error(`the poll sweep came to ${JSON.stringify(pollSweep)}`);
    }
    expectDelivered(polled);

    // Sweeps of one and of three due sessions whose result is not ready.
    for (const count of [1, 3]) {
      const tokens = Array.from({ length: count }, (_, i) => user(`due${count}_${i}`));
      for (const token of tokens) await receiver.track(`tok_${token}`, token);
      await counted();
      const report = await receiver.sweep();
      paths[`sweep${count}`] = await counted();
      if (report.leased !== count || report.pending !== count) {
        throw new Error(`the sweep of ${count} came to ${JSON.stringify(report)}`);
      }
      // They are due again at once (pollScheduleMs [0]): close them for the next sweep.
      for (const token of tokens) results.set(`tok_${token}`, setup.payload(token));
      await receiver.sweep();
    }
  }
  await counted();
  return paths;
}

/** Every path once, uncounted. */
async function warmUp<Payload>(
  receiver: ReceiverLike,
  setup: ReceiverPathsSetup<Payload>,
  results: Map<string, Payload>,
  warm: string,
): Promise<void> {
  const webhook = await setup.sign(setup.payload(warm, { session_token: `tok_${warm}` }));
  await receiver.receive(webhook);
  await receiver.receive(webhook);
  const byUser = `${warm}_by_user`;
  await receiver.track(`tok_${byUser}`, byUser);
  results.set(`tok_${byUser}`, setup.payload(byUser));
  await receiver.receive(await setup.sign(setup.payload(byUser)));
  const polled = `${warm}_polled`;
  await receiver.track(`tok_${polled}`, polled);
  await receiver.sweep();
  results.set(`tok_${polled}`, setup.payload(polled));
  await receiver.sweep();
}

/**
 * `paths` as `name: '<in turn>/<requests>'`, the way the round-trip tests pin them. A sweep of
 * three due sessions is pinned by what each session adds (`perDueSession`: requests): its
 * sessions are worked on side by side, and whether one of them starts only after another's
 * request was answered depends on the machine, not on the code.
 */
export function tallyPaths(paths: ReceiverPaths): Record<string, string> {
  const { sweep1, sweep3, ...rest } = paths;
  const tally: Record<string, string> = Object.fromEntries(
    Object.entries(rest).map(([name, trips]) => [name, `${trips.inTurn}/${trips.requests}`]),
  );
  if (sweep1 && sweep3) {
    tally.sweep1 = `${sweep1.inTurn}/${sweep1.requests}`;
    tally.perDueSession = `+${(sweep3.requests - sweep1.requests) / 2}`;
  }
  return tally;
}
