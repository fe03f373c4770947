import { expect } from 'vitest';
import type { ApiClient } from './api-client.js';
import type { SoftAuthenticator } from './soft-authenticator.js';

/** Registers a passkey named `name` on `auth` for the signed-in client; answers the new passkey's view. */
export async function registerPasskey(c: ApiClient, auth: SoftAuthenticator, name: string): Promise<{ id: number; name: string }> {
  const options = await c.post('/api/user/passkey/register/options');
  expect(options.body.success, options.body.message).toBe(true);
  const done = await c.post('/api/user/passkey/register', { name, response: auth.create(options.body.data) });
  expect(done.body.success, done.body.message).toBe(true);
  return done.body.data as { id: number; name: string };
}

/** Options for a sign-in with a passkey alone (a fresh challenge). */
export async function loginOptions(c: ApiClient) {
  const r = await c.post('/api/user/passkey/login/options');
  expect(r.body.success, r.body.message).toBe(true);
  return r.body.data as { challenge: string; rpId?: string; allowCredentials?: Array<{ id: string }> };
}

/** The error envelope of a server message, in English. */
export const refused = (message: string) => ({ success: false, message });

export const MSG = {
  expired: 'This passkey request has expired or was already used; please try again',
  failed: 'The passkey could not be verified; please try again',
  counter: "This passkey's signature counter went backwards, so it may have been cloned: refused. Remove the passkey and register it again",
  unknown: 'This passkey is not registered here, or its account is disabled',
  notFound: 'Passkey not found',
  sessionOnly: 'Passkeys are managed from a signed-in console session; access tokens are not accepted',
} as const;
