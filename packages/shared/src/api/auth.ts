import { z } from 'zod';
import { resource } from './contract.js';
import { apiEmpty, apiResponse } from './envelope.js';
import { username } from './fields.js';
import { twoFactorChallenge } from './two-factor-challenge.js';
import { sessionUser } from './users.js';

/** Sign-in and sign-up forms are a few short fields: anything larger is not worth reading unauthenticated. */
export const FORM_BODY_LIMIT = 64 * 1024;

/** `?turnstile=`: the console sends it on every guarded call, empty when the check is off. */
export const turnstileQuery = z.object({ turnstile: z.string().optional() });

/** The console sends `null` for what it does not have (`aff_code` when there was no `?aff=`). */
const optionalText = z
  .string()
  .nullish()
  .transform((v) => v ?? undefined);

export const registerBody = z.object({
  username: username.default(''),
  password: z.string().default(''),
  password2: optionalText,
  email: optionalText,
  verification_code: optionalText,
  aff_code: optionalText,
});
/** Login takes a username or an email; NFKC so a name typed in full-width finds the stored spelling. */
export const loginBody = z.object({ username: z.string().default('').transform((s) => s.normalize('NFKC')), password: z.string().default('') });
export const loginResult = sessionUser.extend({ default_password: z.boolean() });
/** A sign-in's answer: the session user, or (an account with a second factor) the challenge to finish it. */
export const loginAnswer = z.union([loginResult, twoFactorChallenge]);
export const emailQuery = turnstileQuery.extend({ email: z.string().default('') });
export const resetBody = z.object({ email: z.string().default(''), token: z.string().default('') });

export type RegisterBody = z.input<typeof registerBody>;
export type LoginBody = z.input<typeof loginBody>;
export type LoginResult = z.infer<typeof loginResult>;
export type LoginAnswer = z.infer<typeof loginAnswer>;

export const authRoutes = resource('sessions', {
  'POST /api/user/register': { auth: 'public', summary: 'Sign up with a password', querystring: turnstileQuery, body: registerBody, response: apiEmpty, bodyLimit: FORM_BODY_LIMIT },
  'POST /api/user/login': {
    auth: 'public',
    summary: 'Sign in: sets the session cookie; later calls send `New-Api-User: <id>`',
    querystring: turnstileQuery,
    body: loginBody,
    response: apiResponse(loginAnswer),
    bodyLimit: FORM_BODY_LIMIT,
  },
  'GET /api/user/logout': { auth: 'public', summary: 'Sign out (ends the session)', response: apiEmpty },
  'GET /api/verification': { auth: 'public', summary: 'Mail an email verification code', querystring: emailQuery, response: apiEmpty },
  'GET /api/reset_password': { auth: 'public', summary: 'Mail a password-reset link', querystring: emailQuery, response: apiEmpty },
  'POST /api/user/reset': { auth: 'public', summary: 'Reset a password from a mailed link; answers the new password', body: resetBody, response: apiResponse(z.string()), bodyLimit: FORM_BODY_LIMIT },
});
