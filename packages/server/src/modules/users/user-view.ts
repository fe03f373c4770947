import { parsePeriodLimits, type WindowMeter } from '@modelgate/shared';
import type { SelfUser, SessionUser, User } from '@modelgate/shared/api';
import type { UserRow } from '../../db/schema.js';

/**
 * A user as the console expects it (console-api.md §5, G3): `DeletedAt` with that exact casing,
 * null when active; never the password hash. The access token is only in the owner's own view.
 */
export function userView(row: UserRow): User;
export function userView(row: UserRow, opts: { includeSecrets: true; windows: WindowMeter[] }): SelfUser;
export function userView(row: UserRow, opts: { includeSecrets?: boolean; windows?: WindowMeter[] } = {}): User | SelfUser {
  const view: User = {
    id: row.id,
    username: row.username,
    display_name: row.display_name,
    role: row.role,
    status: row.status,
    email: row.email,
    github_id: row.github_id,
    wechat_id: row.wechat_id,
    telegram_id: row.telegram_id,
    linux_do_id: row.linux_do_id,
    oidc_id: row.oidc_id ?? '',
    discord_id: row.discord_id ?? '',
    quota: Number(row.quota),
    used_quota: Number(row.used_quota),
    request_count: Number(row.request_count),
    group: row.group,
    aff_code: row.aff_code ?? '',
    aff_count: Number(row.aff_count),
    aff_quota: Number(row.aff_quota),
    aff_history_quota: Number(row.aff_history),
    inviter_id: Number(row.inviter_id),
    created_at: Number(row.created_at),
    DeletedAt: row.deleted_at === null ? null : new Date(Number(row.deleted_at) * 1000).toISOString(),
    concurrency_limit: Number(row.concurrency_limit ?? 0),
    period_limits: parsePeriodLimits(row.period_limits),
  };
  return opts.includeSecrets ? { ...view, access_token: row.access_token ?? '', windows: opts.windows ?? [] } : view;
}

/** The login answer the console stores as `localStorage.user`. */
export function loginView(row: UserRow): SessionUser {
  return { id: row.id, username: row.username, display_name: row.display_name, role: row.role, status: row.status, group: row.group };
}
