import { api } from '../../lib/api';

export function requestPasswordReset(email: string, turnstile: string): Promise<unknown> {
  return api.get('/api/reset_password', { email, turnstile });
}
