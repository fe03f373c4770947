import type { LoginBody, LoginResult } from '@modelgate/shared/api';
import { call } from '../../lib/api';

/** The reference sends `?turnstile=` even when the check is off. */
export function login(input: LoginBody, turnstile: string): Promise<LoginResult> {
  return call('POST /api/user/login', { body: input, query: { turnstile } });
}
