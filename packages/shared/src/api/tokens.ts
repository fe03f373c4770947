import { z } from 'zod';
import { GROUP_NAME_MAX_LENGTH } from '../constants.js';
import { resource } from './contract.js';
import { apiEmpty, apiResponse } from './envelope.js';
import { QUOTA_MAX } from '../validation.js';
import { boolLike, count32, expiry, id, idParam, int, int32, line, listQuery, queryText, quota, safeInt, text } from './fields.js';
import { periodLimits, periodLimitsView } from './plans.js';

/** A token as the console expects it (G7): key without `sk-`, flags as booleans, limits as a comma string. */
export const token = z
  .object({
    id: z.number().int(),
    user_id: z.number().int(),
    /** Without the `sk-` prefix; the console shows and copies `"sk-" + key`. */
    key: z.string(),
    /** 1 enabled, 2 disabled, 3 expired, 4 exhausted (as it is now, even before a request noticed). */
    status: z.number().int(),
    name: z.string(),
    created_time: z.number().int(),
    accessed_time: z.number().int(),
    /** Unix seconds, -1 = never. */
    expired_time: z.number().int(),
    remain_quota: z.number().int(),
    unlimited_quota: z.boolean(),
    model_limits_enabled: z.boolean(),
    /** Comma-separated model names. */
    model_limits: z.string(),
    allow_ips: z.string(),
    used_quota: z.number().int(),
    /** "" = the owner's group. */
    group: z.string(),
    /** Requests and tokens (prompt + completion) per minute; 0 = no limit. */
    rpm_limit: z.number().int(),
    tpm_limit: z.number().int(),
    /** Caps per window (5h, day, week, month) in quota and requests (docs/ledger.md "Windows and plans"). */
    period_limits: periodLimitsView,
  })
  .meta({ id: 'Token' });
export type Token = z.infer<typeof token>;

// Lengths are the columns' (model_limits, allow_ips varchar(1024)); the name's own limit is the service's.
export const tokenBody = z.object({
  name: line().optional(),
  remain_quota: quota.optional(),
  expired_time: expiry.optional(),
  unlimited_quota: boolLike.optional(),
  model_limits_enabled: boolLike.optional(),
  model_limits: text(1024).optional(),
  allow_ips: text(1024).optional(),
  group: line(GROUP_NAME_MAX_LENGTH).optional(),
  rpm_limit: count32.optional(),
  tpm_limit: int(0, QUOTA_MAX).optional(),
  period_limits: periodLimits.optional(),
});
/** `count` creates that many tokens at once (extra ones named `name-XXXXXX`). */
export const createTokenBody = tokenBody.extend({ count: safeInt.optional() });
export const updateTokenBody = tokenBody.extend({ id, status: int32.optional() });
export const tokenSearchQuery = z.object({ keyword: queryText, token: queryText });

export type TokenBody = z.input<typeof tokenBody>;
export type CreateTokenBody = z.input<typeof createTokenBody>;
export type UpdateTokenBody = z.input<typeof updateTokenBody>;

export const tokenRoutes = resource('tokens', {
  'GET /api/token/': { auth: 'user', summary: 'Own tokens, list style (p from 0; `size`)', querystring: listQuery, response: apiResponse(z.array(token)) },
  'GET /api/token/search': { auth: 'user', summary: 'Own tokens by name and key', querystring: tokenSearchQuery, response: apiResponse(z.array(token)) },
  'GET /api/token/:id': { auth: 'user', summary: 'One own token', params: idParam, response: apiResponse(token) },
  'POST /api/token/': {
    auth: 'user',
    summary: 'Create a token (or `count` tokens: an array)',
    body: createTokenBody,
    response: apiResponse(z.union([token, z.array(token)])),
  },
  'PUT /api/token/': {
    auth: 'user',
    summary: 'Edit a token; `?status_only=true` changes only its status',
    querystring: z.object({ status_only: z.string().optional() }),
    body: updateTokenBody,
    response: apiResponse(token),
  },
  'DELETE /api/token/:id': { auth: 'user', summary: 'Delete an own token', params: idParam, response: apiEmpty },
});
