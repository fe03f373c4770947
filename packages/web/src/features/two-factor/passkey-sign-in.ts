import type { LoginResult } from '@modelgate/shared/api';
import { loadNamespaces } from '../../i18n';
import { passkeyLogin, passkeyLoginOptions } from './passkeys-api';
import { getAssertion, reportPasskeyError } from './webauthn';

/**
 * A sign-in with a passkey alone (no username typed): the login screen imports this module when
 * its passkey button is pressed, so neither the WebAuthn library nor these texts weigh on /login.
 * Answers the signed-in user, or null when it did not happen (the reason was shown).
 */
export async function signInWithPasskey(): Promise<LoginResult | null> {
  try {
    await loadNamespaces(['passkey']);
    return await passkeyLogin(await getAssertion(await passkeyLoginOptions()));
  } catch (error) {
    reportPasskeyError(error);
    return null;
  }
}
