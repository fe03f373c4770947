import { api } from '../../lib/api';

/** Returns the new password the server generated (console-api.md §5). */
export function confirmPasswordReset(email: string, token: string): Promise<string> {
  return api.post<string>('/api/user/reset', { email, token });
}
