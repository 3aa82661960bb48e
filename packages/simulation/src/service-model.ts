import type { Random } from './random.js';
import type { Scheduler } from './scheduler.js';

/** What the service decided for a session; the source of truth the invariants compare with. */
export interface ServiceResult {
  status: 'verified' | 'failed';
  external_user_id: string;
  confidence: number;
  livenessPassed: boolean;
  duplicate: boolean;
  risk: string;
  reason: string | null;
}

export interface ServiceSession {
  token: string;
  externalUserId: string;
  createdAt: number;
  expiresAt: number;
  result?: ServiceResult;
  completedAt?: number;
}

/** A fault of `GET /v1/sessions/:token` for a while: the service pacing us, or unreachable. */
export type PollFault = 'rate_limited' | 'unreachable';

const BASE_URL = 'https://service.test';
const API_KEY = 'fv_test_simulation_key';
const TOKEN_LIFETIME_MS = 15 * 60_000;
const RISKS = ['low', 'medium', 'high'] as const;

/**
 * The face verification service as the interface describes it, in process: `POST /v1/verify`
 * and `GET /v1/sessions/:token` behind a `fetch`, answers after a network delay, and signed
 * `verification.completed` bodies for completed sessions. Faults (429 with `retry_after_ms`,
 * an unreachable service) come from the schedule.
 */
export class ServiceModel {
  readonly baseUrl = BASE_URL;
  readonly apiKey = API_KEY;
  readonly sessions = new Map<string, ServiceSession>();
  /** Every `GET /v1/sessions/:token` the service was sent, when, and whether it faulted. */
  readonly reads: Array<{ at: number; token: string; fault: PollFault | undefined }> = [];
  private pollFault: PollFault | undefined;
  private sequence = 0;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly random: Random,
  ) {}

  setPollFault(fault: PollFault | undefined): void {
    this.pollFault = fault;
  }

  /** A `fetch` for one process: answers never reach a process that died meanwhile. */
  fetchFor(alive: () => boolean): typeof fetch {
    return (input, init) => {
      const url = new URL(typeof input === 'string' ? input : input.toString());
      const method = init?.method ?? 'GET';
      const body = typeof init?.body === 'string' ? init.body : undefined;
      const headers = new Headers(init?.headers);
      const answer = this.answer(method, url.pathname, headers, body);
      const latency = this.random.int(5, 120);
      return new Promise<Response>((resolve, reject) => {
        this.scheduler.after(latency, () => {
          if (!alive()) return;
          if (answer === 'unreachable') reject(new TypeError('fetch failed'));
          else resolve(answer);
        });
      });
    };
  }

  private answer(
    method: string,
    path: string,
    headers: Headers,
    body: string | undefined,
  ): Response | 'unreachable' {
    const read = method === 'GET' ? /^\/v1\/sessions\/([^/]+)$/.exec(path) : null;
    const token = read ? decodeURIComponent(read[1]!) : undefined;
    if (token !== undefined) {
      this.reads.push({ at: this.scheduler.now(), token, fault: this.pollFault });
    }
    if (this.pollFault === 'unreachable') return 'unreachable';
    if (headers.get('authorization') !== `Bearer ${API_KEY}`) {
      return json(401, { error: 'unauthorized', message: 'Bad API key.' });
    }
    if (method === 'POST' && path === '/v1/verify') {
      const { external_user_id } = JSON.parse(body ?? '{}') as { external_user_id: string };
      const session = this.create(external_user_id);
      return json(201, {
        token: session.token,
        verify_url: `${BASE_URL}/verify/${session.token}`,
        status: 'pending',
        external_user_id,
        expires_at: new Date(session.expiresAt).toISOString(),
      });
    }
    if (token !== undefined) {
      if (this.pollFault === 'rate_limited') {
        const retryAfterMs = this.random.int(1_000, 20_000);
        return json(429, {
          success: false,
          message: 'Rate limit exceeded.',
          retry_after_ms: retryAfterMs,
        });
      }
      const session = this.sessions.get(token);
      if (!session) return json(404, { error: 'session_not_found', message: 'No such session.' });
      return json(200, this.view(session));
    }
    return json(404, { error: 'not_found', message: 'There is no such endpoint.' });
  }

  private create(externalUserId: string): ServiceSession {
    const now = this.scheduler.now();
    // Numbered in its first six characters, which error contexts carry (`tokenId`).
    const number = (++this.sequence).toString(36).padStart(3, '0');
    const token = `hst${number}_${Math.floor(this.random.float() * 1e9).toString(36)}`;
    const session = { token, externalUserId, createdAt: now, expiresAt: now + TOKEN_LIFETIME_MS };
    this.sessions.set(token, session);
    return session;
  }

  private view(session: ServiceSession) {
    const now = this.scheduler.now();
    const status = session.result
      ? session.result.status
      : now >= session.expiresAt
        ? 'expired'
        : 'pending';
    return {
      token: session.token,
      status,
      external_user_id: session.externalUserId,
      created_at: new Date(session.createdAt).toISOString(),
      completed_at: session.completedAt ? new Date(session.completedAt).toISOString() : null,
      result: session.result ? { ...session.result, frontImageUrl: imageUrl(session) } : null,
    };
  }

  /** The end user finishes the hosted page: the session's result, while its token lives. */
  complete(token: string): ServiceResult | undefined {
    const session = this.sessions.get(token);
    const now = this.scheduler.now();
    if (!session || session.result || now >= session.expiresAt) return undefined;
    session.result = {
      status: this.random.chance(0.7) ? 'verified' : 'failed',
      external_user_id: session.externalUserId,
      confidence: Math.round(this.random.float() * 100) / 100,
      livenessPassed: this.random.chance(0.8),
      duplicate: this.random.chance(0.1),
      risk: this.random.pick(RISKS),
      reason: this.random.chance(0.5) ? null : 'face_mismatch',
    };
    session.completedAt = now;
    return session.result;
  }

  /** The webhook body of a completed session, as the service sends it. */
  webhookBody(session: ServiceSession): string {
    return JSON.stringify({
      event: 'verification.completed',
      ...session.result,
      frontImageUrl: imageUrl(session),
    });
  }
}

function imageUrl(session: ServiceSession): string {
  return `${BASE_URL}/images/${session.token.slice(0, 8)}.jpg?sig=x`;
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}
