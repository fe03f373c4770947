import { api } from '../../lib/api';

export interface SelfUser {
  id: number;
  username: string;
  display_name: string;
  role: number;
  status: number;
  email?: string;
  group: string;
  quota: number;
  used_quota: number;
  request_count: number;
  aff_code?: string;
  aff_count?: number;
  aff_quota?: number;
  aff_history_quota?: number;
  inviter_id?: number;
}

export const settingKeys = {
  self: ['user', 'self'] as const,
  affCode: ['user', 'aff'] as const,
};

export function fetchSelf(): Promise<SelfUser> {
  return api.get<SelfUser>('/api/user/self');
}

export async function fetchAffCode(): Promise<string> {
  const code = await api.get<string>('/api/user/aff');
  return typeof code === 'string' ? code : '';
}

/** Replaces the account's system access token (the old one stops working). */
export function generateAccessToken(): Promise<string> {
  return api.get<string>('/api/user/token');
}

/** The server ends the account's other sessions; this one stays signed in. */
export function changePassword(originalPassword: string, password: string): Promise<unknown> {
  return api.put('/api/user/self', { original_password: originalPassword, password });
}

export function deleteSelf(): Promise<unknown> {
  return api.delete('/api/user/self');
}

export function inviteLink(origin: string, code: string): string {
  return `${origin}/register?aff=${encodeURIComponent(code)}`;
}
