import type { AuthenticationResponse, LoginResult, Passkey, RegistrationResponse, SecondFactorMethods } from '@modelgate/shared/api';
import { call } from '../../lib/api';

export type { Passkey, SecondFactorMethods };

export const passkeyKeys = {
  list: ['user', 'passkeys'] as const,
  methods: (flowToken: string) => ['login', '2fa', 'methods', flowToken] as const,
};

export function fetchPasskeys(): Promise<Passkey[]> {
  return call('GET /api/user/passkey');
}

export function registrationOptions() {
  return call('POST /api/user/passkey/register/options');
}

export function savePasskey(name: string, response: RegistrationResponse): Promise<Passkey> {
  return call('POST /api/user/passkey/register', { body: { name, response } });
}

export function renamePasskey(id: number, name: string): Promise<Passkey> {
  return call('PUT /api/user/passkey/:id', { params: { id }, body: { name } });
}

export function removePasskey(id: number): Promise<unknown> {
  return call('DELETE /api/user/passkey/:id', { params: { id } });
}

/** Sign-in with a passkey alone: options with no account named, then the authenticator's answer. */
export function passkeyLoginOptions() {
  return call('POST /api/user/passkey/login/options');
}

export function passkeyLogin(response: AuthenticationResponse): Promise<LoginResult> {
  return call('POST /api/user/passkey/login', { body: { response } });
}

/** The second factors a pending sign-in can be finished with (no toast: the step falls back to the code form). */
export function secondFactorMethods(flowToken: string): Promise<SecondFactorMethods> {
  return call('POST /api/user/login/2fa/methods', { body: { flow_token: flowToken }, silent: true });
}

export function secondFactorPasskeyOptions(flowToken: string) {
  return call('POST /api/user/login/2fa/passkey/options', { body: { flow_token: flowToken } });
}

export function finishWithPasskey(flowToken: string, response: AuthenticationResponse): Promise<LoginResult> {
  return call('POST /api/user/login/2fa/passkey', { body: { flow_token: flowToken, response } });
}
