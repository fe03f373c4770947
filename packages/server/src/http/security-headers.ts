import type { FastifyInstance } from 'fastify';

/** Third-party scripts the console loads, each only while the feature that needs it is on. */
export const TURNSTILE_SCRIPT_ORIGIN = 'https://challenges.cloudflare.com';
export const TELEGRAM_SCRIPT_ORIGIN = 'https://telegram.org';

/**
 * The console's policy. Scripts only from this origin, plus — only while they are switched on —
 * Cloudflare Turnstile (spec §5 human check; its docs ask for script-src and frame-src on
 * challenges.cloudflare.com) and Telegram's login widget (telegram.org's script, which frames
 * oauth.telegram.org). antd's CSS-in-JS writes <style> elements and style attributes, hence
 * 'unsafe-inline' for styles only. Admin content (notice, about, home page) may show https
 * images and, given a URL, an https iframe.
 */
export function consoleCsp(formTargets: readonly string[] = [], scriptSources: readonly string[] = []): string {
  return [
    "default-src 'self'",
    ["script-src", "'self'", ...scriptSources].join(' '),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: https:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "frame-src 'self' https:",
    "frame-ancestors 'none'",
    "object-src 'none'",
    "base-uri 'self'",
    ['form-action', "'self'", ...formTargets].join(' '),
  ].join('; ');
}

export const CONSOLE_CSP = consoleCsp();

/**
 * The origin of an address an admin set, for a CSP source list; null for anything that is not a
 * plain http(s) URL (a value that could smuggle another directive never reaches the header).
 */
export function cspOrigin(address: string): string | null {
  try {
    const url = new URL(address);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : null;
  } catch {
    return null;
  }
}

/**
 * JSON answers load nothing and are framed by nobody. `sandbox` as well: the relay passes some
 * upstream bodies on with the upstream's own content type (speech, a non-JSON reply), and a body
 * that turns out to be HTML or SVG must not become a live document on this origin.
 */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; sandbox";

/**
 * Answers that are not console pages: the API, the relay (`/v1`, `/v1beta`, the `/dashboard`
 * billing routes), the playground, the Midjourney (`/mj`, `/mj-{mode}/mj`) and Suno relays. One
 * anchored test per request.
 */
const API_PATH = /^\/(?:api\/|v1|pg\/|mj[/-]|suno\/|dashboard\/)/;

/** The API's headers, built once: the relay's hot path only copies them onto the response. */
const API_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Content-Security-Policy', API_CSP],
  ['X-Frame-Options', 'DENY'],
  ['Referrer-Policy', 'strict-origin-when-cross-origin'],
];

/**
 * Security headers on every answer. They go on the raw response in onRequest, so replies the
 * relay writes on the socket itself (streams after a hijack, the realtime upgrade's refusals)
 * carry them too.
 */
export function installSecurityHeaders(app: FastifyInstance, opts: { formTarget?: () => string; scriptSources?: () => readonly string[] } = {}): void {
  // The wallet posts its top-up form to the payment gateway (PayAddress): that origin, and only it, is a form target too.
  let cached = { key: '', csp: CONSOLE_CSP };
  const csp = (): string => {
    const target = opts.formTarget?.() ?? '';
    const scripts = opts.scriptSources?.() ?? [];
    const key = `${target}\n${scripts.join(' ')}`;
    if (key !== cached.key) {
      const origin = cspOrigin(target);
      cached = { key, csp: consoleCsp(origin ? [origin] : [], scripts) };
    }
    return cached.csp;
  };
  app.addHook('onRequest', (req, reply, done) => {
    const res = reply.raw;
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const url = req.url;
    if (API_PATH.test(url)) {
      for (const [name, value] of API_HEADERS) res.setHeader(name, value);
      // Relay callers are programs, not browsers: HSTS is for the console and its API.
      if (url.startsWith('/api/') && req.protocol === 'https') res.setHeader('Strict-Transport-Security', 'max-age=31536000');
    } else {
      res.setHeader('Content-Security-Policy', csp());
      res.setHeader('X-Frame-Options', 'DENY');
      res.setHeader('Referrer-Policy', 'strict-origin-when-cross-origin');
      // Served over https (directly, or behind a trusted proxy that says so): browsers keep to https.
      if (req.protocol === 'https') res.setHeader('Strict-Transport-Security', 'max-age=31536000');
    }
    done();
  });
}
