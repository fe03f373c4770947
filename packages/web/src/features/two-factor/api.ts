import type { LoginResult, SessionUser, TwoFactorChallenge, TwoFactorSetup, TwoFactorStatus } from '@modelgate/shared/api';
import { call } from '../../lib/api';

export type { TwoFactorChallenge, TwoFactorSetup, TwoFactorStatus };

export const twoFactorKeys = {
  status: ['user', '2fa', 'status'] as const,
};

/** A sign-in's answer that still waits for the second factor (no session yet). */
export function isChallenge(answer: SessionUser | LoginResult | TwoFactorChallenge): answer is TwoFactorChallenge {
  return 'require_2fa' in answer && answer.require_2fa === true;
}

export function fetchTwoFactorStatus(): Promise<TwoFactorStatus> {
  return call('GET /api/user/2fa/status');
}

/** A new secret and its QR code; not in force until `enableTwoFactor` confirms it. */
export function startTwoFactorSetup(): Promise<TwoFactorSetup> {
  return call('POST /api/user/2fa/setup');
}

/** Confirms the enrolment; answers the backup codes (the only time they are shown). */
export async function enableTwoFactor(code: string): Promise<string[]> {
  return (await call('POST /api/user/2fa/enable', { body: { code } })).backup_codes;
}

export function disableTwoFactor(code: string): Promise<unknown> {
  return call('POST /api/user/2fa/disable', { body: { code } });
}

export async function regenerateBackupCodes(code: string): Promise<string[]> {
  return (await call('POST /api/user/2fa/backup_codes', { body: { code } })).backup_codes;
}

/** The second step of a sign-in: the flow token from the first step and a code (or backup code). */
export function finishTwoFactorLogin(flowToken: string, code: string): Promise<LoginResult> {
  return call('POST /api/user/login/2fa', { body: { flow_token: flowToken, code } });
}

/** Root: removes a user's second factor (audited; the user's sessions end). */
export function resetUserTwoFactor(id: number): Promise<unknown> {
  return call('DELETE /api/user/:id/2fa', { params: { id } });
}
