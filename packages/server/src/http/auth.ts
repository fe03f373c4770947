import { Role, UserStatus } from '@modelgate/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UserRow } from '../db/schema.js';
import type { UsersRepository } from '../modules/users/users.repository.js';
import { AppError } from './errors.js';
import { SESSION_COOKIE } from './session.js';
import type { SessionStore } from './session-store.js';

export interface AuthUser {
  id: number;
  username: string;
  role: number;
  status: number;
  group: string;
  viaAccessToken: boolean;
  /** The session record's key when signed in by cookie (kept alive by a self password change). */
  sessionKey?: string;
  /** When that session was signed in (unix seconds); undefined for an access token. */
  signedInAt?: number;
  row: UserRow;
}

/** What resolving a caller reads: the session records and the users (for access tokens). */
export interface AuthDeps {
  sessions: Pick<SessionStore, 'resolve'>;
  users: Pick<UsersRepository, 'findByAccessToken'>;
}

declare module 'fastify' {
  interface FastifyRequest {
    authUser?: AuthUser;
  }
}

/**
 * Resolves the caller from the session cookie or an access token in `Authorization`, reading role
 * and status fresh from the database each time. A session cookie is checked against its record on
 * every request, so an ended session is refused at once on every node. Returns null when neither
 * credential is present.
 */
export async function resolveCaller(ctx: AuthDeps, req: FastifyRequest): Promise<AuthUser | null> {
  const cookie = req.cookies?.[SESSION_COOKIE];
  const auth = req.headers.authorization;
  if (cookie) {
    const session = await ctx.sessions.resolve(cookie);
    if (session) {
      const header = req.headers['new-api-user'];
      const headerId = typeof header === 'string' ? header.trim() : '';
      if (!/^\d+$/.test(headerId) || Number(headerId) !== session.row.id) {
        throw new AppError('SESSION_USER_MISMATCH', 401);
      }
      return { ...toAuthUser(session.row, false, session.key), signedInAt: session.signedInAt };
    }
    // A stale cookie beside a valid access token (a script) must not hide the token.
    if (!auth) throw new AppError('SESSION_EXPIRED', 401);
  }
  if (auth) {
    const token = auth.replace(/^Bearer\s+/i, '').trim();
    const row = token ? await ctx.users.findByAccessToken(token) : undefined;
    if (!row) throw new AppError('ACCESS_TOKEN_INVALID', 401);
    return toAuthUser(row, true);
  }
  return null;
}

function toAuthUser(row: UserRow, viaAccessToken: boolean, sessionKey?: string): AuthUser {
  return { id: row.id, username: row.username, role: row.role, status: row.status, group: row.group, viaAccessToken, sessionKey, row };
}

/** preHandler factory: the caller must be signed in, enabled, and hold at least `minRole`. */
export function requireRole(ctx: AuthDeps, minRole: number) {
  return async function authGuard(req: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const user = await resolveCaller(ctx, req);
    if (!user) throw new AppError('NOT_LOGGED_IN', 401);
    if (user.status !== UserStatus.Enabled) throw new AppError('USER_BANNED');
    if (user.role < minRole) throw new AppError('NO_PERMISSION');
    req.authUser = user;
  };
}

export const requireUser = (ctx: AuthDeps) => requireRole(ctx, Role.Common);
export const requireAdmin = (ctx: AuthDeps) => requireRole(ctx, Role.Admin);
export const requireRoot = (ctx: AuthDeps) => requireRole(ctx, Role.Root);

/** Returns the authenticated caller set by a guard; routes without a guard must not call it. */
export function caller(req: FastifyRequest): AuthUser {
  if (!req.authUser) throw new AppError('NOT_LOGGED_IN', 401);
  return req.authUser;
}

/** The guard of each signed-in role, for routes declared from their contracts (http/schema.ts). */
export function authGuards(ctx: AuthDeps) {
  return { user: requireUser(ctx), admin: requireAdmin(ctx), root: requireRoot(ctx) };
}
