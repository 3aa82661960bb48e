import { randomBytes } from 'node:crypto';
import { createSessionToken, hashSessionToken } from '../tokens.js';
import type { SessionRecord, SessionStatus, SimulatedResult } from './session-record.js';

/**
 * Sessions stay readable this long after their token expires, so polling still answers for
 * them; after that they are forgotten, so a long-running emulator does not grow without bound.
 */
const RETENTION_AFTER_EXPIRY_MS = 24 * 60 * 60 * 1000;

/** In-memory sessions, keyed by the SHA-256 of their token: the token itself is never kept. */
/**
 * A session's name in the inspector and its log: the start of its token's hash, which tells
 * nothing about the token (the token itself is never kept).
 */
export function sessionIdOf(record: SessionRecord): string {
  return record.tokenHash.slice(0, 12);
}

export class SessionStore {
  private readonly sessions = new Map<string, SessionRecord>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  /**
   * Opens a pending session of `accountId`. The token is returned once, to be handed to the
   * caller.
   */
  create(
    accountId: string,
    externalUserId: string,
    redirectUrl: string | null,
  ): { token: string; record: SessionRecord } {
    const now = this.now();
    this.forgetOld(now);
    const token = createSessionToken();
    const record: SessionRecord = {
      tokenHash: hashSessionToken(token),
      accountId,
      externalUserId,
      redirectUrl,
      createdAt: now,
      expiresAt: now + this.ttlMs,
      completedAt: null,
      result: null,
      frontImageId: null,
    };
    this.sessions.set(record.tokenHash, record);
    return { token, record };
  }

  find(token: string): SessionRecord | undefined {
    return this.sessions.get(hashSessionToken(token));
  }

  /**
   * The session of `token` if it belongs to `accountId`. Another account's session is not
   * found, exactly as a token that does not exist, so a key never learns that it exists.
   */
  findOfAccount(token: string, accountId: string): SessionRecord | undefined {
    const record = this.find(token);
    return record?.accountId === accountId ? record : undefined;
  }

  statusOf(record: SessionRecord): SessionStatus {
    if (record.result) return record.result.status;
    return this.now() >= record.expiresAt ? 'expired' : 'pending';
  }

  /**
   * Records the result and names the session's front image. Callers check the session is
   * pending first, with no `await` in between, so two concurrent completions cannot both win.
   */
  complete(record: SessionRecord, result: SimulatedResult): { frontImageId: string } {
    const frontImageId = randomBytes(16).toString('base64url');
    record.result = result;
    record.completedAt = this.now();
    record.frontImageId = frontImageId;
    return { frontImageId };
  }

  countByStatus(): Record<SessionStatus, number> {
    const counts: Record<SessionStatus, number> = {
      pending: 0,
      verified: 0,
      failed: 0,
      expired: 0,
    };
    for (const record of this.sessions.values()) counts[this.statusOf(record)] += 1;
    return counts;
  }

  /** Every session kept, newest first. */
  list(): SessionRecord[] {
    return [...this.sessions.values()].reverse();
  }

  /** The session an inspector id names (see `sessionIdOf`). */
  findById(id: string): SessionRecord | undefined {
    if (!/^[0-9a-f]{12}$/.test(id)) return undefined;
    for (const record of this.sessions.values()) {
      if (sessionIdOf(record) === id) return record;
    }
    return undefined;
  }

  /**
   * Forgets the sessions past their retention. Every session lives `ttlMs`, so the map's
   * order (creation) is expiry order: the scan stops at the first session still kept, and a
   * session created costs no walk over all the others (50,000 open sessions made it quadratic).
   */
  private forgetOld(now: number): void {
    for (const [hash, record] of this.sessions) {
      if (now - record.expiresAt <= RETENTION_AFTER_EXPIRY_MS) return;
      this.sessions.delete(hash);
    }
  }
}
