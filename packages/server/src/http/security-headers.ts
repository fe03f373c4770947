import type { FastifyInstance } from 'fastify';

/**
 * The console's policy. Scripts only from this origin plus Cloudflare Turnstile (spec §5 human
 * check; its docs ask for script-src and frame-src on challenges.cloudflare.com). antd's CSS-in-JS
 * writes <style> elements and style attributes, hence 'unsafe-inline' for styles only. Admin
 * content (notice, about, home page) may show https images and, given a URL, an https iframe.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self' https://challenges.cloudflare.com",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: https:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self' https:",
  "frame-ancestors 'none'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

/** JSON answers load nothing and are framed by nobody. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

const RELAY_PREFIXES = ['/v1', '/pg/', '/mj/', '/suno/'];

/**
 * Security headers on every answer. They go on the raw response, so replies the relay writes on
 * the socket itself (streams, after hijack) carry them too; the relay gets only nosniff, which
 * costs nothing on its hot path and is all a machine-read JSON or SSE answer needs.
 */
export function installSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (req, reply, done) => {
    const res = reply.raw;
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const url = req.url;
    if (!RELAY_PREFIXES.some((p) => url.startsWith(p))) {
      res.setHeader('Content-Security-Policy', url.startsWith('/api/') ? API_CSP : CONSOLE_CSP);
      res.setHeader('X-Frame-Options', 'DENY');
      res.setHeader('Referrer-Policy', 'strict-origin-when-cross-origin');
    }
    done();
  });
}
