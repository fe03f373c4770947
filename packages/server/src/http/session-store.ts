import type { Db } from '../db/client.js';
import type { UserRow } from '../db/schema.js';
import { nowSec } from './reply.js';
import { hashSessionId, newSessionId, SESSION_TTL_SEC, signSessionId, verifySessionCookie } from './session.js';

/**
 * `last_seen_at` is refreshed at most this often: a write on every request would double the cost
 * of each /api call for a value only shown to a human.
 */
export const LAST_SEEN_EVERY_SEC = 5 * 60;

export interface LiveSession {
  /** The record's key, sha256 of the session id (never the id itself). */
  key: string;
  row: UserRow;
  /** When this session was signed in (unix seconds): a fresh sign-in may change the password without the old one. */
  signedInAt: number;
}

export interface SessionMeta {
  ip?: string;
  userAgent?: string;
}

/**
 * Session records in the shared database. Deliberately no in-process cache: a session ended on
 * one node must be refused by every node on its next request.
 */
export class SessionStore {
  constructor(
    private readonly handle: Db,
    private readonly secret: string,
  ) {}

  private get db() {
    return this.handle.db;
  }

  /** Starts a session for the user and returns the signed cookie value. */
  async create(userId: number, meta: SessionMeta = {}): Promise<string> {
    const id = newSessionId();
    const now = nowSec();
    await this.db
      .insertInto('sessions')
      .values({
        id: hashSessionId(id),
        user_id: userId,
        created_at: now,
        expires_at: now + SESSION_TTL_SEC,
        last_seen_at: now,
        ip: (meta.ip ?? '').slice(0, 64),
        user_agent: (meta.userAgent ?? '').slice(0, 255),
      })
      .execute();
    // The user's own expired rows go at each sign-in, so they never pile up between cleanups.
    await this.db.deleteFrom('sessions').where('user_id', '=', userId).where('expires_at', '<=', now).execute();
    return signSessionId(this.secret, id);
  }

  /** The record key a well-signed cookie names, else null. */
  keyOf(cookie: string | undefined): string | null {
    const id = verifySessionCookie(this.secret, cookie);
    return id ? hashSessionId(id) : null;
  }

  /**
   * The live session a cookie names, with its user read fresh in the same query (two primary-key
   * lookups, one round trip). Null for a bad cookie, an ended or expired session, or a deleted user.
   */
  async resolve(cookie: string | undefined): Promise<LiveSession | null> {
    const key = this.keyOf(cookie);
    if (!key) return null;
    const found = await this.db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .selectAll('users')
      .select(['sessions.expires_at as session_expires_at', 'sessions.last_seen_at as session_last_seen_at', 'sessions.created_at as session_created_at'])
      .where('sessions.id', '=', key)
      .where('users.deleted_at', 'is', null)
      .executeTakeFirst();
    if (!found) return null;
    const { session_expires_at: expiresAt, session_last_seen_at: lastSeenAt, session_created_at: createdAt, ...row } = found;
    const now = nowSec();
    if (Number(expiresAt) <= now) {
      await this.revokeKey(key);
      return null;
    }
    if (now - Number(lastSeenAt) >= LAST_SEEN_EVERY_SEC) {
      await this.db.updateTable('sessions').set({ last_seen_at: now }).where('id', '=', key).execute();
    }
    return { key, row, signedInAt: Number(createdAt) };
  }

  /** The user a live session record belongs to (no user row read): for per-user rate limits. */
  async userIdOf(key: string): Promise<number | null> {
    const row = await this.db.selectFrom('sessions').select('user_id').where('id', '=', key).where('expires_at', '>', nowSec()).executeTakeFirst();
    return row ? Number(row.user_id) : null;
  }

  async revokeKey(key: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id', '=', key).execute();
  }

  /** Ends the session a cookie names (logout); a bad or unknown cookie is a no-op. */
  async revokeCookie(cookie: string | undefined): Promise<void> {
    const key = this.keyOf(cookie);
    if (key) await this.revokeKey(key);
  }

  /** Ends every session of the user, except `keepKey` (the caller's own, after a self password change). */
  async revokeUser(userId: number, keepKey?: string): Promise<void> {
    let q = this.db.deleteFrom('sessions').where('user_id', '=', userId);
    if (keepKey) q = q.where('id', '!=', keepKey);
    await q.execute();
  }

  /** Removes expired records; returns how many. */
  async deleteExpired(now = nowSec()): Promise<number> {
    const res = await this.db.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst();
    return Number(res.numDeletedRows);
  }
}
