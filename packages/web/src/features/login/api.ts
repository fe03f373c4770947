import type { LoginAnswer, LoginBody } from '@modelgate/shared/api';
import { call } from '../../lib/api';

/** The reference sends `?turnstile=` even when the check is off. With two-factor on, the answer is the challenge for the second step. */
export function login(input: LoginBody, turnstile: string): Promise<LoginAnswer> {
  return call('POST /api/user/login', { body: input, query: { turnstile } });
}
