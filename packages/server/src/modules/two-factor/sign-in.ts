import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { UserRow } from '../../db/schema.js';
import { SESSION_COOKIE, sessionCookieOptions } from '../../http/session.js';

type Deps = Pick<AppContext, 'sessions' | 'twoFactor'>;

/** A new session for the user: a new id at every sign-in, and the session this browser held before ends. */
export async function startSession(ctx: Pick<AppContext, 'sessions'>, req: FastifyRequest, reply: FastifyReply, row: UserRow): Promise<void> {
  await ctx.sessions.revokeCookie(req.cookies?.[SESSION_COOKIE]);
  const cookie = await ctx.sessions.create(row.id, { ip: req.ip, userAgent: req.headers['user-agent'] });
  reply.setCookie(SESSION_COOKIE, cookie, sessionCookieOptions(req.protocol === 'https'));
}

/**
 * The end of a first factor (a password, a sign-in provider): with two-factor sign-in on, no
 * session yet but a flow token for `POST /api/user/login/2fa`; otherwise the session starts now.
 */
export async function afterFirstFactor(
  ctx: Deps,
  req: FastifyRequest,
  reply: FastifyReply,
  row: UserRow,
  opts: { defaultPassword?: boolean } = {},
): Promise<{ require_2fa: true; flow_token: string } | null> {
  if (await ctx.twoFactor.isEnabled(row.id)) {
    return { require_2fa: true, flow_token: await ctx.twoFactor.startLogin({ userId: row.id, defaultPassword: opts.defaultPassword ?? false }) };
  }
  await startSession(ctx, req, reply, row);
  return null;
}
