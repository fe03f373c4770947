import type { AuthenticationResponse, RegistrationResponse } from '@modelgate/shared/api';
import {
  startAuthentication,
  startRegistration,
  WebAuthnError,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import i18n from '../../i18n';
import { ApiError } from '../../lib/api';
import { showError } from '../../lib/feedback';

/**
 * The browser's half of the passkey ceremonies (`navigator.credentials.create()` / `.get()`), kept
 * out of the sign-in page's bundle: the login screen imports this module only when the passkey
 * button is pressed. Texts come from the `passkey` namespace, loaded by the callers.
 */

/** The options as the server sends them are WebAuthn's JSON forms; the library's types are stricter string unions. */
export async function createCredential(options: unknown): Promise<RegistrationResponse> {
  return (await startRegistration({ optionsJSON: options as PublicKeyCredentialCreationOptionsJSON })) as RegistrationResponse;
}

export async function getAssertion(options: unknown): Promise<AuthenticationResponse> {
  return (await startAuthentication({ optionsJSON: options as PublicKeyCredentialRequestOptionsJSON })) as AuthenticationResponse;
}

/** Whether this browser offers WebAuthn at all (checked before showing a passkey button). */
export function passkeysSupported(): boolean {
  return typeof window !== 'undefined' && typeof window.PublicKeyCredential === 'function';
}

/**
 * Shows what went wrong in a ceremony: the server's refusals were toasted by the API client already;
 * the browser's own (cancelled, already on this device, unsupported) get a sentence of their own.
 */
export function reportPasskeyError(error: unknown): void {
  if (error instanceof ApiError) return;
  const t = i18n.getFixedT(null, 'passkey');
  const code = error instanceof WebAuthnError ? error.code : undefined;
  const name = error instanceof Error ? error.name : '';
  if (code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED' || name === 'InvalidStateError') showError(t('error.alreadyOnDevice'));
  else if (code === 'ERROR_CEREMONY_ABORTED' || name === 'NotAllowedError' || name === 'AbortError') showError(t('error.cancelled'));
  else if (!passkeysSupported() || name === 'NotSupportedError') showError(t('error.unsupported'));
  else showError(t('error.failed', { message: error instanceof Error ? error.message : String(error) }));
}
