/** Roles (spec §6): admin is role ≥ 10, super admin role ≥ 100 (the console labels it "admin"). */
export const Role = { Guest: 0, Common: 1, Admin: 10, Root: 100 } as const;
export type RoleValue = (typeof Role)[keyof typeof Role];

/** The only roles a user can hold (common, admin, root). */
export const ROLE_VALUES = [Role.Common, Role.Admin, Role.Root] as const;

export const isAdminRole = (role: number): boolean => role >= Role.Admin;
export const isRootRole = (role: number): boolean => role >= Role.Root;

export type RoleKey = 'root' | 'admin' | 'user' | 'unknown';

/** The i18n key (`role.<key>`) and tag colour of a role; a value between levels takes the level below. */
export function roleTag(role: number): { key: RoleKey; color?: string } {
  if (role >= Role.Root) return { key: 'root', color: 'orange' };
  if (role >= Role.Admin) return { key: 'admin', color: 'gold' };
  if (role >= Role.Common) return { key: 'user', color: 'blue' };
  return { key: 'unknown' };
}
