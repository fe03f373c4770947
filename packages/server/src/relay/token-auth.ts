import { ChannelStatus, Role, TokenStatus, UserStatus, type Lang } from '@modelgate/shared';
import type { FastifyRequest } from 'fastify';
import type { RelayContext } from './relay-context.js';
import type { CachedToken, CachedUser } from './auth-cache.js';
import type { RuntimeChannel } from './channel-cache.js';
import { localError, maskKey, RelayError } from './relay-error.js';

export interface RelayAuth {
  token: CachedToken;
  user: CachedUser;
  /** The token group if set, else the user's group. */
  group: string;
  /** Admin channel pin (`sk-<key>-<channelId>`): never retried. */
  pinned: RuntimeChannel | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the relay scope's onRequest hook (relay-gate.ts), before the body is read. */
    relayAuth: RelayAuth | null;
  }
}

/** The authentication the relay gate stored for this request (or, outside the gate, a fresh one). */
export function requestAuth(ctx: RelayContext, req: FastifyRequest, lang: Lang): RelayAuth | Promise<RelayAuth> {
  return req.relayAuth ?? authenticateToken(ctx, req, lang);
}

/**
 * Token authentication for `/v1` (reference §2 TokenAuth and §3.1 Distribute steps 1, 3, 4).
 * Lookups come from the in-memory caches; the quota checks happen in the ledger's conditional
 * debit, so a stale cache can never let a request spend money that is not there.
 */
export async function authenticateToken(ctx: RelayContext, req: FastifyRequest, lang: Lang): Promise<RelayAuth> {
  // Anthropic's SDKs send the key in `x-api-key` (providers-international §1.6), Google's in
  // `x-goog-api-key` or, on Gemini routes only, `?key=` (§2.6); Bearer is accepted everywhere.
  const apiKey = req.headers['x-api-key'];
  const googKey = req.headers['x-goog-api-key'];
  const queryKey = req.routeOptions.config.relayFormat === 'gemini' ? (req.query as { key?: unknown } | undefined)?.key : undefined;
  const header =
    req.headers.authorization ||
    (typeof apiKey === 'string' ? apiKey : '') ||
    (typeof googKey === 'string' ? googKey : '') ||
    (typeof queryKey === 'string' ? queryKey : '');
  let value = header.replace(/^Bearer\s+/i, '').trim();
  if (value.startsWith('sk-')) value = value.slice(3);
  if (!value) throw localError(lang, 401, 'RELAY_TOKEN_MISSING');
  const parts = value.split('-');
  const key = parts[0]!;
  const token = await ctx.relay.auth.token(key);
  if (!token) throw localError(lang, 401, 'RELAY_TOKEN_INVALID');

  const now = Math.floor(Date.now() / 1000);
  if (token.status === TokenStatus.Exhausted) throw localError(lang, 401, 'RELAY_TOKEN_EXHAUSTED', { detail: maskKey(key) });
  if (token.status === TokenStatus.Expired) throw localError(lang, 401, 'RELAY_TOKEN_EXPIRED');
  if (token.status !== TokenStatus.Enabled) throw localError(lang, 401, 'RELAY_TOKEN_UNAVAILABLE');
  if (token.expiredTime !== -1 && token.expiredTime < now) {
    // Stored, so the console shows it as expired too (reference: without Redis the DB is updated).
    await ctx.relay.markTokenStatus(token.id, TokenStatus.Expired);
    throw localError(lang, 401, 'RELAY_TOKEN_EXPIRED');
  }

  const user = await ctx.relay.auth.user(token.userId);
  if (!user || user.deleted || user.status !== UserStatus.Enabled) throw localError(lang, 403, 'RELAY_USER_DISABLED');

  if (token.allowIps && !token.allowIps.has(req.ip)) throw localError(lang, 403, 'RELAY_IP_FORBIDDEN');

  let group = user.group;
  if (token.group) {
    if (!Object.hasOwn(ctx.options.usableGroups(user.group), token.group)) {
      throw localError(lang, 403, 'RELAY_GROUP_DISABLED', { detail: token.group });
    }
    if (!ctx.options.groupExists(token.group)) throw localError(lang, 403, 'RELAY_GROUP_DEPRECATED', { detail: token.group });
    group = token.group;
  }

  let pinned: RuntimeChannel | null = null;
  if (parts.length > 1 && parts[1]) {
    if (user.role < Role.Admin) throw localError(lang, 403, 'RELAY_PIN_FORBIDDEN');
    const id = /^\d+$/.test(parts[1]) ? Number(parts[1]) : NaN;
    await ctx.relay.channels.ensure();
    const ch = Number.isInteger(id) ? ctx.relay.channels.get(id) : undefined;
    if (!ch) throw localError(lang, 400, 'RELAY_PIN_NOT_FOUND');
    if (ch.status !== ChannelStatus.Enabled) throw localError(lang, 403, 'RELAY_PIN_DISABLED');
    pinned = ch;
  }
  return { token, user, group, pinned };
}

export function assertModelAllowed(auth: RelayAuth, model: string, lang: Lang): void {
  if (auth.token.modelLimits && !auth.token.modelLimits.has(model)) {
    throw localError(lang, 403, 'RELAY_MODEL_FORBIDDEN', { detail: model });
  }
}

export type { RelayError };
