import { isAdminRole, isRootRole } from '@modelgate/shared';
import type { StoredUser } from './storage';

export function isAdmin(user: Pick<StoredUser, 'role'> | null | undefined): boolean {
  return !!user && isAdminRole(user.role);
}

export function isRoot(user: Pick<StoredUser, 'role'> | null | undefined): boolean {
  return !!user && isRootRole(user.role);
}
