import { z } from 'zod';
import { FORM_BODY_LIMIT } from './auth.js';
import { resource } from './contract.js';
import { apiEmpty, apiResponse } from './envelope.js';
import { idParam } from './fields.js';
import { sessionUser } from './users.js';

export * from './two-factor-challenge.js';

/**
 * TOTP two-factor sign-in (docs/security.md#second-factor). Paths and field names follow the
 * reference console (`/api/user/2fa/*`, `flow_token`, `backup_codes`) so its conventions carry over.
 */

/** A six-digit code from the authenticator app, or a one-time backup code (`abcd-efgh`). */
const code = z.string().max(64).default('');

export const twoFactorLoginBody = z.object({ flow_token: z.string().max(200).default(''), code });
export const twoFactorCodeBody = z.object({ code });

export const twoFactorStatus = z.object({
  /** TOTP (an authenticator app) is on. */
  enabled: z.boolean(),
  /** Unused backup codes left (0 while off). */
  backup_codes_remaining: z.number().int(),
  /** The admin policy (TwoFactorRequiredForAdmins) applies to this account and it has no second factor yet (no TOTP, no passkey). */
  enrolment_required: z.boolean(),
  /** Registered passkeys: each is a second factor as well (docs/security.md#passkeys). */
  passkeys: z.number().int(),
});
export type TwoFactorStatus = z.infer<typeof twoFactorStatus>;

export const twoFactorSetup = z.object({
  /** Base32, for typing into an app by hand; shown during enrolment only. */
  secret: z.string(),
  /** The `otpauth://totp/…` URI the QR code holds. */
  qr_code_data: z.string(),
  /** The QR code as a `data:image/png;base64,…` URL. */
  qr_code: z.string(),
});
export type TwoFactorSetup = z.infer<typeof twoFactorSetup>;

/** Ten one-time codes, shown once: only their hashes are stored. */
export const backupCodes = z.object({ backup_codes: z.array(z.string()) });

/** A sign-in's answer with the second factor: the session user (as `POST /api/user/login`). */
export const twoFactorLoginResult = sessionUser.extend({ default_password: z.boolean() });

export const twoFactorRoutes = resource('two-factor', {
  'POST /api/user/login/2fa': {
    auth: 'public',
    summary: 'Finish a sign-in with the second factor: a TOTP code or a backup code; sets the session cookie',
    body: twoFactorLoginBody,
    response: apiResponse(twoFactorLoginResult),
    bodyLimit: FORM_BODY_LIMIT,
  },
  'GET /api/user/2fa/status': { auth: 'user', summary: 'Whether the caller has two-factor sign-in on', response: apiResponse(twoFactorStatus) },
  'POST /api/user/2fa/setup': {
    auth: 'user',
    summary: 'Start enrolment: a new secret and its QR code (not active until confirmed with a code)',
    response: apiResponse(twoFactorSetup),
  },
  'POST /api/user/2fa/enable': {
    auth: 'user',
    summary: 'Confirm enrolment with a code from the app; answers the ten backup codes, once',
    body: twoFactorCodeBody,
    response: apiResponse(backupCodes),
    bodyLimit: FORM_BODY_LIMIT,
  },
  'POST /api/user/2fa/disable': {
    auth: 'user',
    summary: 'Turn two-factor sign-in off with a code or a backup code',
    body: twoFactorCodeBody,
    response: apiEmpty,
    bodyLimit: FORM_BODY_LIMIT,
  },
  'POST /api/user/2fa/backup_codes': {
    auth: 'user',
    summary: 'Replace the backup codes (a code from the app required); answers the new ones, once',
    body: twoFactorCodeBody,
    response: apiResponse(backupCodes),
    bodyLimit: FORM_BODY_LIMIT,
  },
  'DELETE /api/user/:id/2fa': {
    auth: 'root',
    summary: "Reset a user's second factor: TOTP, backup codes and passkeys (they sign in with the password alone and may enrol again); ends their sessions",
    params: idParam,
    response: apiEmpty,
    audit: { action: 'user.reset_2fa', target: 'user', targetId: 'params.id' },
  },
});
