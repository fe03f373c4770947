import type { RegisterBody } from '@modelgate/shared/api';
import { call } from '../../lib/api';

export function register(input: RegisterBody, turnstile: string): Promise<unknown> {
  return call('POST /api/user/register', { body: input, query: { turnstile } });
}

export function sendVerificationCode(email: string, turnstile: string): Promise<unknown> {
  return call('GET /api/verification', { query: { email, turnstile } });
}
