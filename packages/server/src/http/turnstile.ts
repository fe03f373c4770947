import type { FastifyRequest } from 'fastify';
import { request } from 'undici';
import type { Config } from '../config/config.js';
import type { OptionsService } from '../modules/options/options.service.js';
import { AppError } from './errors.js';

/**
 * The human check on sign-in routes (`?turnstile=<token>`) when TurnstileCheckEnabled: the token
 * is verified with Cloudflare's siteverify (TURNSTILE_VERIFY_URL overrides it for tests).
 */
export function turnstileGuard(ctx: { config: Pick<Config, 'turnstileVerifyUrl'>; options: Pick<OptionsService, 'bool' | 'str'> }) {
  return async function checkTurnstile(req: FastifyRequest): Promise<void> {
    if (!ctx.options.bool('TurnstileCheckEnabled')) return;
    const token = String((req.query as Record<string, unknown>).turnstile ?? '').trim();
    if (!token) throw new AppError('TURNSTILE_EMPTY');
    let ok = false;
    try {
      const res = await request(ctx.config.turnstileVerifyUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ secret: ctx.options.str('TurnstileSecretKey'), response: token, remoteip: req.ip }).toString(),
        signal: AbortSignal.timeout(10_000),
      });
      const body = (await res.body.json()) as { success?: boolean };
      ok = res.statusCode === 200 && body.success === true;
    } catch {
      ok = false;
    }
    if (!ok) throw new AppError('TURNSTILE_FAILED');
  };
}
