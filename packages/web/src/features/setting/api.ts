import type { SelfUser } from '@modelgate/shared/api';
import { call } from '../../lib/api';

export type { SelfUser };

export const settingKeys = {
  self: ['user', 'self'] as const,
  affCode: ['user', 'aff'] as const,
};

export function fetchSelf(): Promise<SelfUser> {
  return call('GET /api/user/self');
}

export async function fetchAffCode(): Promise<string> {
  const code = await call('GET /api/user/aff');
  return typeof code === 'string' ? code : '';
}

/** Replaces the account's system access token (the old one stops working). */
export function generateAccessToken(): Promise<string> {
  return call('GET /api/user/token');
}

/** The server ends the account's other sessions; this one stays signed in. */
export function changePassword(originalPassword: string, password: string): Promise<unknown> {
  return call('PUT /api/user/self', { body: { original_password: originalPassword, password } });
}

export function deleteSelf(): Promise<unknown> {
  return call('DELETE /api/user/self');
}

export function inviteLink(origin: string, code: string): string {
  return `${origin}/register?aff=${encodeURIComponent(code)}`;
}

/** Moves pending invitation rewards (quota units) into the balance. */
export function transferInviteRewards(amount: number): Promise<unknown> {
  return call('POST /api/user/aff_transfer', { body: { quota: amount } });
}
