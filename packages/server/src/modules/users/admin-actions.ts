import { Role, serialisePeriodLimits, UserStatus, type PeriodLimits } from '@modelgate/shared';
import type { UserRow } from '../../db/schema.js';
import type { AuthUser } from '../../http/auth.js';
import { AppError } from '../../http/errors.js';
import { hashPassword } from './password.js';
import { checkDisplayName, checkEmail, checkPassword, checkUsername } from './users.validate.js';

export type ManageAction = 'promote' | 'demote' | 'disable' | 'enable' | 'delete';

/**
 * The rules of an admin's manage action on a user (`POST /api/user/manage`, reference §6): the
 * status and role it leaves, or the refusal. `delete` is a soft delete the caller carries out.
 */
export function manageOutcome(me: AuthUser, target: UserRow, action: ManageAction): { status: number; role: number; softDelete: boolean } {
  let { status, role } = target;
  switch (action) {
    case 'disable':
      if (target.role === Role.Root) throw new AppError('CANNOT_DISABLE_ROOT');
      status = UserStatus.Disabled;
      break;
    case 'enable':
      status = UserStatus.Enabled;
      break;
    case 'delete':
      if (target.role === Role.Root) throw new AppError('CANNOT_DELETE_ROOT');
      return { status, role, softDelete: true };
    case 'promote':
      if (me.role !== Role.Root) throw new AppError('ONLY_ROOT_PROMOTES');
      if (target.role >= Role.Admin) throw new AppError('ALREADY_ADMIN');
      role = Role.Admin;
      break;
    case 'demote':
      if (target.role === Role.Root) throw new AppError('CANNOT_DEMOTE_ROOT');
      if (target.role === Role.Common) throw new AppError('ALREADY_COMMON');
      role = Role.Common;
      break;
    default:
      throw new AppError('INVALID_ACTION');
  }
  return { status, role, softDelete: false };
}

/** The profile fields of an admin's user edit (`PUT /api/user/`); the balance fields go to admin-quota.ts. */
export interface AdminEdit {
  username?: string;
  display_name?: string;
  password?: string;
  group?: string;
  role?: number;
  email?: string;
  concurrency_limit?: number;
  /** Caps per window, already validated by the route's schema (shared/api/plans.ts). */
  period_limits?: PeriodLimits;
}

/** The refusal for a name in use: as typed, or in another case (`ROOT` when `root` exists). */
export function usernameTakenError(taken: 'exact' | 'caseless'): AppError {
  return new AppError(taken === 'exact' ? 'USERNAME_TAKEN' : 'USERNAME_TAKEN_IGNORING_CASE');
}

/**
 * The columns an admin's edit changes, each checked; an empty patch when nothing changes.
 * `usernameTaken` and `emailTaken` look past the target itself, so a change of case goes through.
 */
export async function adminEditPatch(
  target: UserRow,
  body: AdminEdit,
  usernameTaken: (name: string) => Promise<'exact' | 'caseless' | null>,
  emailTaken: (email: string) => Promise<boolean>,
): Promise<Record<string, unknown>> {
  const patch: Record<string, unknown> = {};
  if (body.username !== undefined && body.username.trim() !== target.username) {
    const username = body.username.trim();
    checkUsername(username);
    const taken = await usernameTaken(username);
    if (taken) throw usernameTakenError(taken);
    patch.username = username;
  }
  if (body.display_name !== undefined) {
    checkDisplayName(body.display_name);
    patch.display_name = body.display_name;
  }
  if (body.password) {
    checkPassword(body.password);
    patch.password = await hashPassword(body.password);
    // A password set by an admin ends the user's access token with the sessions.
    patch.access_token = null;
  }
  if (body.group !== undefined && body.group.trim()) patch.group = body.group.trim();
  if (body.email !== undefined && body.email !== target.email) {
    if (body.email) checkEmail(body.email);
    // One mailbox, one account, ignoring case: a sign-in or a reset by email must find one user.
    if (body.email && (await emailTaken(body.email))) throw new AppError('EMAIL_TAKEN');
    patch.email = body.email;
  }
  if (body.role !== undefined && body.role !== target.role) patch.role = body.role;
  if (body.concurrency_limit !== undefined) patch.concurrency_limit = body.concurrency_limit;
  if (body.period_limits !== undefined) patch.period_limits = serialisePeriodLimits(body.period_limits);
  return patch;
}
