import { call } from '../../lib/api';

/** Returns the new password the server generated (console-api.md §5). */
export function confirmPasswordReset(email: string, token: string): Promise<string> {
  return call('POST /api/user/reset', { body: { email, token } });
}
