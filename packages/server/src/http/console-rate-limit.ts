import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimitSetting } from '../config/config.js';
import type { SessionStore } from './session-store.js';
import { limitOrThrow, type RateLimitStore } from './rate-limit.js';
import { SESSION_COOKIE } from './session.js';

/** Session keys whose owner is known; a session never changes owner, so entries never go stale. */
const MAX_CACHED_SESSIONS = 10_000;

export interface ApiLimitDeps {
  anonymous: RateLimitSetting;
  signedIn: RateLimitSetting;
  store: RateLimitStore;
  sessions: Pick<SessionStore, 'keyOf' | 'userIdOf'>;
}

/**
 * The global `/api` limit. Anonymous callers (and access-token scripts) share a per-IP budget sized
 * against floods; a console session is counted per user instead, with a budget normal clicking never
 * reaches (docs/settings.md#rate-limits). The reference counted every call per IP, so a signed-in
 * operator browsing screens was refused after about two minutes and saw empty lists.
 * A session cookie counts only when its signature is valid (HMAC, no database) and its record is
 * live (one primary-key read, then cached), so a forged or ended cookie falls back to the IP budget.
 */
export function apiRateLimitHook(deps: ApiLimitDeps) {
  const owners = new Map<string, number>();

  async function userOf(req: FastifyRequest): Promise<number | null> {
    const key = deps.sessions.keyOf(req.cookies?.[SESSION_COOKIE]);
    if (!key) return null;
    const known = owners.get(key);
    if (known !== undefined) return known;
    const id = await deps.sessions.userIdOf(key);
    if (id === null) return null;
    if (owners.size >= MAX_CACHED_SESSIONS) owners.delete(owners.keys().next().value!);
    owners.set(key, id);
    return id;
  }

  return async function limit(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!deps.signedIn.enabled && !deps.anonymous.enabled) return;
    const userId = await userOf(req);
    // A session never spends the IP budget: colleagues behind one NAT would starve each other.
    if (userId !== null) {
      if (deps.signedIn.enabled) await limitOrThrow(deps.store, `GAU:${userId}`, deps.signedIn, reply);
      return;
    }
    if (deps.anonymous.enabled) await limitOrThrow(deps.store, `GA:${req.ip}`, deps.anonymous, reply);
  };
}
