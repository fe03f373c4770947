import { api } from '../../lib/api';

export interface RegisterInput {
  username: string;
  password: string;
  password2: string;
  email: string;
  verification_code: string;
  aff_code: string;
}

export function register(input: RegisterInput, turnstile: string): Promise<unknown> {
  return api.post('/api/user/register', input, { params: { turnstile } });
}

export function sendVerificationCode(email: string, turnstile: string): Promise<unknown> {
  return api.get('/api/verification', { email, turnstile });
}
