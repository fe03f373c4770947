import { call } from '../../lib/api';

export function requestPasswordReset(email: string, turnstile: string): Promise<unknown> {
  return call('GET /api/reset_password', { query: { email, turnstile } });
}
