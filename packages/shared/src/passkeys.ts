/**
 * Passkeys (WebAuthn credentials) as a way to sign in and as a second factor
 * (docs/security.md#passkeys): the limits the server enforces and the console shows.
 */

/** The longest name a passkey may be given (characters). */
export const PASSKEY_NAME_MAX_LENGTH = 64;

/** How many passkeys one account may register. */
export const PASSKEYS_PER_USER_MAX = 10;

/** How long a registration or sign-in ceremony may take, from its options to its answer (ms). */
export const PASSKEY_CEREMONY_TTL_MS = 5 * 60 * 1000;

/** The second factors a pending sign-in can be finished with. */
export type SecondFactorMethod = 'totp' | 'passkey';
