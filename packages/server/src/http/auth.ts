import { Role, UserStatus } from '@modelgate/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { UserRow } from '../db/schema.js';
import { AppError } from './errors.js';
import { decodeSession, SESSION_COOKIE } from './session.js';

export interface AuthUser {
  id: number;
  username: string;
  role: number;
  status: number;
  group: string;
  viaAccessToken: boolean;
  row: UserRow;
}

declare module 'fastify' {
  interface FastifyRequest {
    authUser?: AuthUser;
  }
}

/**
 * Resolves the caller from the session cookie or an access token in `Authorization`, reading role
 * and status fresh from the database each time. Returns null when neither is present.
 */
export async function resolveCaller(ctx: AppContext, req: FastifyRequest): Promise<AuthUser | null> {
  const session = decodeSession(ctx.config.sessionSecret, req.cookies?.[SESSION_COOKIE]);
  if (session) {
    const header = req.headers['new-api-user'];
    const headerId = typeof header === 'string' ? header.trim() : '';
    if (!/^\d+$/.test(headerId) || Number(headerId) !== session.uid) {
      throw new AppError('SESSION_USER_MISMATCH', 401);
    }
    const row = await ctx.users.findActiveById(session.uid);
    if (!row) throw new AppError('SESSION_USER_MISMATCH', 401);
    return toAuthUser(row, false);
  }
  const auth = req.headers.authorization;
  if (auth) {
    const token = auth.replace(/^Bearer\s+/i, '').trim();
    const row = token ? await ctx.users.findByAccessToken(token) : undefined;
    if (!row) throw new AppError('ACCESS_TOKEN_INVALID', 401);
    return toAuthUser(row, true);
  }
  return null;
}

function toAuthUser(row: UserRow, viaAccessToken: boolean): AuthUser {
  return { id: row.id, username: row.username, role: row.role, status: row.status, group: row.group, viaAccessToken, row };
}

/** preHandler factory: the caller must be signed in, enabled, and hold at least `minRole`. */
export function requireRole(ctx: AppContext, minRole: number) {
  return async function authGuard(req: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const user = await resolveCaller(ctx, req);
    if (!user) throw new AppError('NOT_LOGGED_IN', 401);
    if (user.status !== UserStatus.Enabled) throw new AppError('USER_BANNED');
    if (user.role < minRole) throw new AppError('NO_PERMISSION');
    req.authUser = user;
  };
}

export const requireUser = (ctx: AppContext) => requireRole(ctx, Role.Common);
export const requireAdmin = (ctx: AppContext) => requireRole(ctx, Role.Admin);
export const requireRoot = (ctx: AppContext) => requireRole(ctx, Role.Root);

/** Returns the authenticated caller set by a guard; routes without a guard must not call it. */
export function caller(req: FastifyRequest): AuthUser {
  if (!req.authUser) throw new AppError('NOT_LOGGED_IN', 401);
  return req.authUser;
}
