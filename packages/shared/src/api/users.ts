import { z } from 'zod';
import { GROUP_NAME_MAX_LENGTH } from '../constants.js';
import { resource } from './contract.js';
import { apiEmpty, apiResponse, paged } from './envelope.js';
import { count32, id, idParam, line, pageQuery, quota, queryText, role, username } from './fields.js';
import { periodLimits, periodLimitsView, windowMeter } from './plans.js';

/** The login answer the console stores as `localStorage.user` (console-api.md §4). */
export const sessionUser = z
  .object({
    id: z.number().int(),
    username: z.string(),
    display_name: z.string(),
    role: z.number().int(),
    status: z.number().int(),
    group: z.string(),
  })
  .meta({ id: 'SessionUser' });
export type SessionUser = z.infer<typeof sessionUser>;

/**
 * A user as the console expects it (console-api.md §5, G3): `DeletedAt` with that exact casing,
 * null while active. Never the password hash.
 */
export const user = z
  .object({
    id: z.number().int(),
    username: z.string(),
    display_name: z.string(),
    role: z.number().int(),
    /** 1 active, 2 banned, 3 cannot be enabled (spec §3). */
    status: z.number().int(),
    email: z.string(),
    github_id: z.string(),
    wechat_id: z.string(),
    telegram_id: z.string(),
    linux_do_id: z.string(),
    /** The OIDC provider's user id (the configured claim); ModelGate's, not the reference's. */
    oidc_id: z.string(),
    /** The Discord user id (a snowflake). */
    discord_id: z.string(),
    quota: z.number().int(),
    used_quota: z.number().int(),
    request_count: z.number().int(),
    group: z.string(),
    aff_code: z.string(),
    aff_count: z.number().int(),
    aff_quota: z.number().int(),
    aff_history_quota: z.number().int(),
    inviter_id: z.number().int(),
    created_at: z.number().int(),
    DeletedAt: z.string().nullable(),
    /** Relay requests in flight at once; 0 = no limit. */
    concurrency_limit: z.number().int(),
    /** Caps per window (5h, day, week, month) in quota and requests (docs/ledger.md "Windows and plans"). */
    period_limits: periodLimitsView,
  })
  .meta({ id: 'User' });
export type User = z.infer<typeof user>;

/** A user in the admin list: also which second factors they have (docs/security.md#second-factor). */
export const userListItem = user
  .extend({
    two_factor: z.object({
      /** TOTP (an authenticator app) is on. */
      totp: z.boolean(),
      /** Registered passkeys. */
      passkeys: z.number().int(),
    }),
  })
  .meta({ id: 'UserListItem' });
export type UserListItem = z.infer<typeof userListItem>;

/** The owner's own record: also the system access token. */
export const selfUser = user
  .extend({
    access_token: z.string(),
    /** The user's windows now — own limits and running plans — as meters (scripts read them here). */
    windows: z.array(windowMeter),
  })
  .meta({ id: 'SelfUser' });
export type SelfUser = z.infer<typeof selfUser>;

/** `{group: {ratio, desc}}`, the user's own group first. */
export const usableGroup = z.object({ ratio: z.number(), desc: z.string() });
export const usableGroups = z.record(z.string(), usableGroup);
export type UsableGroup = z.infer<typeof usableGroup>;

export const manageAction = z.enum(['promote', 'demote', 'disable', 'enable', 'delete'], { error: 'INVALID_ACTION' });
export type ManageAction = z.infer<typeof manageAction>;

const str = z.string().optional();

export const updateSelfBody = z.object({ username: username.optional(), display_name: line().optional(), password: str, original_password: str });
export const createUserBody = z.object({ username: username.optional(), password: str, display_name: line().optional(), role: role.optional() });
export const updateUserBody = z.object({
  id,
  username: username.optional(),
  display_name: line().optional(),
  password: str,
  group: line(GROUP_NAME_MAX_LENGTH).optional(),
  email: str,
  quota: quota.optional(),
  add_quota: quota.optional(),
  role: role.optional(),
  concurrency_limit: count32.optional(),
  period_limits: periodLimits.optional(),
});
export const manageUserBody = z.object({ id, action: manageAction });
export const userSearchQuery = pageQuery.extend({ keyword: queryText, group: queryText });

export type UpdateSelfBody = z.input<typeof updateSelfBody>;
export type CreateUserBody = z.input<typeof createUserBody>;
export type UpdateUserBody = z.input<typeof updateUserBody>;

export const userRoutes = resource('users', {
  'GET /api/user/groups': { auth: 'public', summary: 'Groups a new user may use, with their ratios', response: apiResponse(usableGroups) },
  'GET /api/user/self': { auth: 'user', summary: 'The signed-in user', response: apiResponse(selfUser) },
  'GET /api/user/self/groups': { auth: 'user', summary: 'Groups the signed-in user may use, own group first', response: apiResponse(usableGroups) },
  'PUT /api/user/self': { auth: 'user', summary: 'Change own username, display name or password', body: updateSelfBody, response: apiEmpty },
  'DELETE /api/user/self': { auth: 'user', summary: 'Cancel own account', response: apiEmpty },
  'GET /api/user/token': { auth: 'user', summary: 'A new system access token (the old one stops working)', response: apiResponse(z.string()) },
  'GET /api/user/aff': { auth: 'user', summary: 'Own invitation code', response: apiResponse(z.string()) },
  'POST /api/user/aff_transfer': { auth: 'user', summary: 'Move invitation earnings into quota', body: z.object({ quota }), response: apiEmpty },
  'GET /api/user/models': { auth: 'user', summary: 'Models the signed-in user may call', response: apiResponse(z.array(z.string())) },
  'GET /api/user/': { auth: 'admin', summary: 'Users, paged (p from 1; 0 reads as 1)', querystring: pageQuery, response: apiResponse(paged(userListItem)) },
  'GET /api/user/search': { auth: 'admin', summary: 'Users by keyword and group, paged', querystring: userSearchQuery, response: apiResponse(paged(userListItem)) },
  'GET /api/user/:id': { auth: 'admin', summary: 'One user', params: idParam, response: apiResponse(user) },
  'POST /api/user/': {
    auth: 'admin',
    summary: 'Create a user (always a common user)',
    body: createUserBody,
    response: apiEmpty,
    audit: { action: 'user.create', target: 'user', targetId: 'body.username' },
  },
  'PUT /api/user/': {
    auth: 'admin',
    summary: 'Edit a user (password "" keeps it)',
    body: updateUserBody,
    response: apiResponse(user),
    // Quota edits (`quota`, `add_quota`) are the console's manual top-ups and adjustments.
    audit: { action: 'user.update', target: 'user', targetId: 'body.id', snapshot: true },
  },
  'POST /api/user/manage': {
    auth: 'admin',
    summary: 'Promote, demote, enable, disable or delete a user',
    body: manageUserBody,
    response: apiResponse(z.object({ status: z.number().int(), role: z.number().int() })),
    audit: {
      action: 'user.update',
      actionBy: {
        field: 'body.action',
        actions: { promote: 'user.promote', demote: 'user.demote', enable: 'user.enable', disable: 'user.disable', delete: 'user.delete' },
      },
      target: 'user',
      targetId: 'body.id',
      snapshot: true,
    },
  },
  'DELETE /api/user/:id': {
    auth: 'admin',
    summary: 'Delete a user for good',
    params: idParam,
    response: apiEmpty,
    audit: { action: 'user.hard_delete', target: 'user', targetId: 'params.id', snapshot: true },
  },
});
