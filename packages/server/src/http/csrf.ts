import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, localise } from './errors.js';
import { SESSION_COOKIE } from './session.js';

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Paths a console session may write to: the management API and the playground. */
const COOKIE_PATHS = ['/api/', '/pg/'];

function hostOf(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.host.toLowerCase() : null;
  } catch {
    return null;
  }
}

/**
 * Why a cookie-authenticated write looks cross-site, or null when it does not. The request's
 * `Origin` (every current browser sends it on these methods) must name this server: the host the
 * request came to (`Host`, or X-Forwarded-Host from a trusted proxy), the configured server
 * address, or FRONTEND_BASE_URL. Without Origin, `Sec-Fetch-Site` must not say another site.
 * The scheme is not compared: TLS ending at a proxy changes it, never the host.
 */
export function crossSiteReason(req: FastifyRequest, extraOrigins: readonly string[]): string | null {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    const host = origin === 'null' ? null : hostOf(origin);
    if (host) {
      const own = [req.host, req.headers.host].filter((h): h is string => typeof h === 'string').map((h) => h.toLowerCase());
      if (own.includes(host)) return null;
      for (const o of extraOrigins) if (o && hostOf(o) === host) return null;
    }
    return `Origin ${origin.slice(0, 200)}`;
  }
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return `Sec-Fetch-Site ${site}`;
  return null;
}

/**
 * CSRF protection for console sessions. The session cookie is SameSite=Lax, and every
 * cookie-authenticated call must carry `New-Api-User` naming the session's user (http/auth.ts),
 * which a form on another site cannot send; this check refuses such a write before any of that,
 * with a message that says why. It runs whenever the session cookie comes along, `Authorization`
 * or not: the auth layer (http/auth.ts) prefers a live session to the header, so a junk
 * `Authorization` beside the cookie would otherwise buy a cookie-authenticated write an exemption.
 * Only calls without the session cookie are exempt — access tokens and API keys are no ambient
 * credential, payment notifications are server-to-server — and every GET (OAuth callbacks).
 */
export function installCsrfGuard(app: FastifyInstance, opts: { origins: () => readonly string[] }): void {
  // A callback hook: the relay's requests pass it on every call, and need no promise for a no.
  app.addHook('onRequest', (req, reply, done) => {
    const reason =
      UNSAFE.has(req.method) && req.cookies?.[SESSION_COOKIE] && COOKIE_PATHS.some((p) => req.url.startsWith(p))
        ? crossSiteReason(req, opts.origins())
        : null;
    if (!reason) return done();
    req.log.warn({ origin: req.headers.origin, site: req.headers['sec-fetch-site'], url: req.url.split('?')[0] }, 'cross-site write with a session cookie refused');
    const err = new AppError('CSRF_REJECTED', 403, reason);
    // The playground answers OpenAI error objects once past sign-in; the API its envelope.
    if (req.url.startsWith('/pg/')) {
      void reply.code(403).send({ error: { message: localise(err, req), type: 'invalid_request_error', param: null, code: 'csrf_rejected' } });
      return;
    }
    done(err);
  });
}
