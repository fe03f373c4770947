import { api } from '../../lib/api';
import type { StoredUser } from '../../lib/storage';

export interface LoginInput {
  username: string;
  password: string;
}

/** The reference sends `?turnstile=` even when the check is off. */
export function login(input: LoginInput, turnstile: string): Promise<StoredUser> {
  return api.post<StoredUser>('/api/user/login', input, { params: { turnstile } });
}
