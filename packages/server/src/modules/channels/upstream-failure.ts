import { Role } from '@modelgate/shared';
import type { FastifyRequest } from 'fastify';
import { caller } from '../../http/auth.js';
import { AppError, localise } from '../../http/errors.js';
import { UpstreamTargetRefused } from '../../net/upstream-guard.js';

/**
 * Why a channel probe (test, balance, model list) failed, in words that carry nothing the upstream
 * wrote: a channel's base URL may point at an internal service, and echoing its answer would turn
 * these buttons into a way to read it. The upstream's own text goes to the server log, and to root
 * only as a short sanitised excerpt.
 */
export interface UpstreamFailure {
  code: 'CHANNEL_UPSTREAM_STATUS' | 'CHANNEL_UPSTREAM_BAD_RESPONSE' | 'CHANNEL_UPSTREAM_UNREACHABLE' | 'CHANNEL_TARGET_REFUSED';
  /** Our words only: `HTTP 502`, `HTTP 200: not JSON`, `ECONNREFUSED`, `timeout after 60s`; '' for a refused target. */
  detail: string;
}

/**
 * A transport error as a code (`ECONNREFUSED`, `UND_ERR_CONNECT_TIMEOUT`) or our timeout text; a
 * target the connect-time guard refused is said as such, naming no address (the log has it).
 */
export function transportFailure(err: unknown, timeoutMs: number): UpstreamFailure {
  if (targetRefused(err)) return { code: 'CHANNEL_TARGET_REFUSED', detail: '' };
  const e = err as { name?: string; code?: unknown; cause?: { code?: unknown } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return { code: 'CHANNEL_UPSTREAM_UNREACHABLE', detail: `timeout after ${timeoutMs / 1000}s` };
  const code = typeof e.code === 'string' ? e.code : typeof e.cause?.code === 'string' ? e.cause.code : 'request failed';
  return { code: 'CHANNEL_UPSTREAM_UNREACHABLE', detail: code };
}

/** The connect-time guard refused the channel's target, directly or beneath a signing step's error. */
export function targetRefused(err: unknown): boolean {
  return err instanceof UpstreamTargetRefused || (err instanceof Error && err.cause instanceof UpstreamTargetRefused);
}

const EXCERPT_MAX = 160;

/** The channel's keys and any bearer token masked: an upstream may echo what it was sent. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let s = text;
  for (const secret of secrets) if (secret.length >= 4) s = s.split(secret).join('***');
  return s.replace(/(bearer\s+)[^\s"',;]+/gi, '$1***');
}

/** Control characters out, whitespace folded, secrets masked, cut short. */
export function sanitisedExcerpt(text: string, secrets: readonly string[]): string {
  // eslint-disable-next-line no-control-regex
  const s = maskSecrets(text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').replace(/\s+/g, ' ').trim(), secrets);
  return s.length > EXCERPT_MAX ? `${s.slice(0, EXCERPT_MAX)}…` : s;
}

/**
 * The message a caller sees for a failed probe: the status-based text for admins; root also gets
 * a sanitised excerpt of the upstream's words. The full text is logged with the request.
 */
export function failureMessage(req: FastifyRequest, channelId: number, failure: UpstreamFailure, upstream: string, secrets: readonly string[]): string {
  req.log.warn({ channelId, failure, upstream: maskSecrets(upstream.slice(0, 2000), secrets) }, 'channel upstream probe failed');
  const base = localise(new AppError(failure.code, 200, failure.detail), req);
  if (caller(req).role < Role.Root) return base;
  const excerpt = sanitisedExcerpt(upstream, secrets);
  return excerpt && excerpt !== failure.detail ? `${base} (${excerpt})` : base;
}

/** The keys of a channel row (one per line for multi-key channels). */
export function channelSecrets(key: string): string[] {
  return key
    .split('\n')
    .map((k) => k.trim())
    .filter(Boolean);
}
