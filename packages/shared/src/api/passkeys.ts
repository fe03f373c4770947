import { z } from 'zod';
import { PASSKEY_NAME_MAX_LENGTH } from '../passkeys.js';
import { FORM_BODY_LIMIT } from './auth.js';
import { resource } from './contract.js';
import { apiEmpty, apiResponse } from './envelope.js';
import { idParam, line } from './fields.js';
import { twoFactorLoginResult } from './two-factor.js';

/**
 * Passkeys (WebAuthn, docs/security.md#passkeys): registration in personal settings, sign-in with
 * a passkey alone (username-less: a discoverable credential names its account), and a passkey as
 * the second factor of a password or provider sign-in. The ceremonies' options and answers are the
 * WebAuthn JSON forms (`PublicKeyCredentialCreationOptionsJSON`, `RegistrationResponseJSON`, …)
 * that `@simplewebauthn/browser` hands over unchanged.
 */

/** base64url as WebAuthn's JSON forms carry binary values (padding tolerated). */
const b64url = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[A-Za-z0-9_-]*={0,2}$/, { error: 'PASSKEY_RESPONSE_INVALID' });

const transports = z.array(z.string().max(32)).max(16);
const extensionResults = z.record(z.string(), z.unknown()).default({});

/** What `navigator.credentials.create()` answered, in its JSON form. */
export const registrationResponse = z.object({
  id: b64url(1400),
  rawId: b64url(1400),
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: b64url(8192),
    attestationObject: b64url(32768),
    authenticatorData: b64url(16384).optional(),
    transports: transports.optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: b64url(8192).optional(),
  }),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: extensionResults,
});
export type RegistrationResponse = z.infer<typeof registrationResponse>;

/** What `navigator.credentials.get()` answered, in its JSON form. */
export const authenticationResponse = z.object({
  id: b64url(1400),
  rawId: b64url(1400),
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: b64url(8192),
    authenticatorData: b64url(16384),
    signature: b64url(2048),
    userHandle: b64url(256).optional(),
  }),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: extensionResults,
});
export type AuthenticationResponse = z.infer<typeof authenticationResponse>;

const credentialDescriptor = z.object({ id: z.string(), type: z.literal('public-key'), transports: transports.optional() });

const hints = z.array(z.string()).optional();
/** The client extension inputs the library may ask for (`credProps` while registering). */
const extensions = z
  .object({ appid: z.string().optional(), credProps: z.boolean().optional(), hmacCreateSecret: z.boolean().optional(), minPinLength: z.boolean().optional() })
  .optional();

/** `PublicKeyCredentialCreationOptionsJSON`: handed to the browser's `create()` as it is. */
export const passkeyCreationOptions = z
  .object({
    challenge: z.string(),
    rp: z.object({ id: z.string().optional(), name: z.string() }),
    user: z.object({ id: z.string(), name: z.string(), displayName: z.string() }),
    pubKeyCredParams: z.array(z.object({ alg: z.number(), type: z.literal('public-key') })),
    timeout: z.number().optional(),
    excludeCredentials: z.array(credentialDescriptor).optional(),
    authenticatorSelection: z
      .object({
        authenticatorAttachment: z.string().optional(),
        residentKey: z.string().optional(),
        requireResidentKey: z.boolean().optional(),
        userVerification: z.string().optional(),
      })
      .optional(),
    attestation: z.string().optional(),
    hints,
    extensions,
  })
  .meta({ id: 'PasskeyCreationOptions' });

/** `PublicKeyCredentialRequestOptionsJSON`: handed to the browser's `get()` as it is. */
export const passkeyRequestOptions = z
  .object({
    challenge: z.string(),
    rpId: z.string().optional(),
    timeout: z.number().optional(),
    allowCredentials: z.array(credentialDescriptor).optional(),
    userVerification: z.string().optional(),
    hints,
    extensions,
  })
  .meta({ id: 'PasskeyRequestOptions' });

/** A registered passkey as its owner sees it (never its public key or credential id). */
export const passkey = z
  .object({
    id: z.number().int(),
    name: z.string(),
    created_at: z.number().int(),
    /** Unix seconds of the last sign-in with it; 0 = never used. */
    last_used_at: z.number().int(),
    /** The authenticator says the credential is synced (a multi-device passkey) rather than bound to one device. */
    backed_up: z.boolean(),
    transports: z.array(z.string()),
  })
  .meta({ id: 'Passkey' });
export type Passkey = z.infer<typeof passkey>;

const passkeyName = line(PASSKEY_NAME_MAX_LENGTH).transform((s) => s.trim());
export const passkeyRegisterBody = z.object({ name: passkeyName.default(''), response: registrationResponse });
export const passkeyRenameBody = z.object({ name: passkeyName });
export const passkeyLoginBody = z.object({ response: authenticationResponse });
const flowToken = z.string().max(200).default('');
export const passkeyFlowBody = z.object({ flow_token: flowToken });
export const passkeySecondFactorBody = z.object({ flow_token: flowToken, response: authenticationResponse });

/** Which second factors a pending sign-in can be finished with (the account's). */
export const secondFactorMethods = z.object({ totp: z.boolean(), passkey: z.boolean() });
export type SecondFactorMethods = z.infer<typeof secondFactorMethods>;

/** A sign-in with a passkey alone: the session user, as `POST /api/user/login` answers it. */
export const passkeyLoginResult = twoFactorLoginResult;

export const passkeyRoutes = resource('passkeys', {
  'GET /api/user/passkey': { auth: 'user', summary: "The caller's passkeys", response: apiResponse(z.array(passkey)) },
  'POST /api/user/passkey/register/options': {
    auth: 'user',
    summary: 'Start registering a passkey: the options for navigator.credentials.create() (the challenge is single-use, 5 minutes)',
    response: apiResponse(passkeyCreationOptions),
  },
  'POST /api/user/passkey/register': {
    auth: 'user',
    summary: "Finish registering: the authenticator's answer to the options and a name; answers the new passkey",
    body: passkeyRegisterBody,
    response: apiResponse(passkey),
    bodyLimit: FORM_BODY_LIMIT,
  },
  'PUT /api/user/passkey/:id': {
    auth: 'user',
    summary: 'Rename one of the caller’s passkeys',
    params: idParam,
    body: passkeyRenameBody,
    response: apiResponse(passkey),
    bodyLimit: FORM_BODY_LIMIT,
  },
  'DELETE /api/user/passkey/:id': { auth: 'user', summary: 'Remove one of the caller’s passkeys', params: idParam, response: apiEmpty },
  'POST /api/user/passkey/login/options': {
    auth: 'public',
    summary: 'Start a sign-in with a passkey alone: options for navigator.credentials.get() with no account named',
    response: apiResponse(passkeyRequestOptions),
  },
  'POST /api/user/passkey/login': {
    auth: 'public',
    summary: "Finish a sign-in with a passkey alone: the authenticator's answer; sets the session cookie",
    body: passkeyLoginBody,
    response: apiResponse(passkeyLoginResult),
    bodyLimit: FORM_BODY_LIMIT,
  },
  'POST /api/user/login/2fa/methods': {
    auth: 'public',
    summary: 'The second factors a pending sign-in (its flow token) can be finished with',
    body: passkeyFlowBody,
    response: apiResponse(secondFactorMethods),
    bodyLimit: FORM_BODY_LIMIT,
  },
  'POST /api/user/login/2fa/passkey/options': {
    auth: 'public',
    summary: "Start finishing a pending sign-in with a passkey: options naming the account's passkeys",
    body: passkeyFlowBody,
    response: apiResponse(passkeyRequestOptions),
    bodyLimit: FORM_BODY_LIMIT,
  },
  'POST /api/user/login/2fa/passkey': {
    auth: 'public',
    summary: 'Finish a pending sign-in with a passkey as the second factor; sets the session cookie',
    body: passkeySecondFactorBody,
    response: apiResponse(twoFactorLoginResult),
    bodyLimit: FORM_BODY_LIMIT,
  },
});
