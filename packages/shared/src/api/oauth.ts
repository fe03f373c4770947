import { z } from 'zod';
import { resource } from './contract.js';
import { apiEmpty, apiFailure, apiResponse, apiSuccess } from './envelope.js';
import { twoFactorChallenge } from './two-factor-challenge.js';
import { sessionUser } from './users.js';

/** The sign-in providers of the redirect flow: `/api/oauth/{type}` and the console's `/oauth/{type}`. */
export const OAUTH_PROVIDERS = ['github', 'linuxdo', 'oidc', 'discord'] as const;
export type OAuthProvider = (typeof OAUTH_PROVIDERS)[number];

const text = z.string().default('');

export const oauthStateQuery = z.object({ aff: z.string().optional() });
export const oauthAuthorizeQuery = z.object({ type: z.enum(OAUTH_PROVIDERS), aff: z.string().optional() });
/** What the provider sent the browser back with (`error` when the user or provider refused). */
export const oauthCallbackQuery = z.object({ code: text, state: text, error: z.string().optional(), error_description: z.string().optional() });
/** Which redirect-flow binding to remove. */
export const oauthUnbindQuery = z.object({ type: z.enum(OAUTH_PROVIDERS) });
export const oauthCodeQuery = z.object({ code: text });
export const emailBindQuery = z.object({ email: text, code: text });
/** Telegram's login-widget fields; any other field it adds is part of the signed data too. */
export const telegramQuery = z.object({ id: text, auth_date: text, hash: text }).catchall(z.string());

/** A sign-in answers the session user (or, with a second factor, the challenge to finish it); a bind answers `message: "bind"` (console-api.md /login). */
export const oauthResult = z.union([apiSuccess(sessionUser), apiSuccess(twoFactorChallenge), z.object({ success: z.literal(true), message: z.literal('bind') }), apiFailure]);
export type OAuthResult = z.infer<typeof oauthResult>;

const callback = (name: string) =>
  ({
    auth: 'public',
    summary: `${name} sign-in callback: signs in (creating the user when new), or binds to the signed-in user`,
    querystring: oauthCallbackQuery,
    response: oauthResult,
    responses: { 403: apiFailure },
  }) as const;

export const oauthRoutes = resource('oauth', {
  'GET /api/oauth/state': {
    auth: 'public',
    summary: 'A single-use sign-in state bound to this browser (cookie), carrying the invite code',
    querystring: oauthStateQuery,
    response: apiResponse(z.string()),
  },
  'GET /api/oauth/authorize': {
    auth: 'public',
    summary: "The provider's authorize URL with client id, redirect URI, a fresh state and (OIDC) PKCE",
    querystring: oauthAuthorizeQuery,
    response: apiResponse(z.string()),
  },
  'GET /api/oauth/github': callback('GitHub'),
  'GET /api/oauth/linuxdo': callback('LinuxDO'),
  'GET /api/oauth/oidc': callback('OpenID Connect'),
  'GET /api/oauth/discord': callback('Discord'),
  'DELETE /api/oauth/bind': {
    auth: 'user',
    summary: 'Remove the caller’s binding of a redirect-flow provider (refused when it is the only way to sign in)',
    querystring: oauthUnbindQuery,
    response: apiEmpty,
  },
  'GET /api/oauth/wechat': { auth: 'public', summary: 'Sign in with the code the WeChat official account sent', querystring: oauthCodeQuery, response: apiResponse(z.union([sessionUser, twoFactorChallenge])) },
  'GET /api/oauth/wechat/bind': { auth: 'user', summary: 'Bind WeChat with the code the official account sent', querystring: oauthCodeQuery, response: apiEmpty },
  'GET /api/oauth/email/bind': { auth: 'user', summary: 'Bind an email address with its verification code', querystring: emailBindQuery, response: apiEmpty },
  'GET /api/oauth/telegram/login': { auth: 'public', summary: 'Sign in with a Telegram login-widget payload', querystring: telegramQuery, response: apiResponse(z.union([sessionUser, twoFactorChallenge])) },
  'GET /api/oauth/telegram/bind': { auth: 'user', summary: 'Bind Telegram with a login-widget payload', querystring: telegramQuery, response: apiEmpty },
});
