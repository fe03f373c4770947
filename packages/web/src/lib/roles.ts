import type { StoredUser } from './storage';

export const ROLE = { user: 1, admin: 10, root: 100 } as const;

export function isAdmin(user: Pick<StoredUser, 'role'> | null | undefined): boolean {
  return !!user && user.role >= ROLE.admin;
}

export function isRoot(user: Pick<StoredUser, 'role'> | null | undefined): boolean {
  return !!user && user.role >= ROLE.root;
}
