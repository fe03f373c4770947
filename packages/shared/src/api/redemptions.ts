import { z } from 'zod';
import { resource } from './contract.js';
import { apiEmpty, apiResponse, paged } from './envelope.js';
import { id, idParam, int32, line, pageQuery, queryFlag, queryText, quota, safeInt } from './fields.js';

/**
 * A redemption code as the admin screens see it (console-api.md §5 `/redemption`): status 1
 * unused, 2 disabled, 3 used; `used_username` names `used_user_id` (empty when unused or the
 * user is gone).
 */
export const redemption = z
  .object({
    id: z.number().int(),
    /** The admin who created it. */
    user_id: z.number().int(),
    key: z.string(),
    status: z.number().int(),
    name: z.string(),
    quota: z.number().int(),
    created_time: z.number().int(),
    /** Unix seconds, 0 while unused. */
    redeemed_time: z.number().int(),
    used_user_id: z.number().int(),
    used_username: z.string(),
  })
  .meta({ id: 'Redemption' });
export type Redemption = z.infer<typeof redemption>;

/** Name 1–20 characters (empty: the quota, formatted), count 1–100 (spec §5); checked by the service. */
export const createRedemptionBody = z.object({
  name: line().optional(),
  quota: quota.optional(),
  count: safeInt.optional(),
});
/** The whole record (the reference console sends it back as read), or `{id, status}` with `?status_only=true`. */
export const updateRedemptionBody = z.object({
  id,
  name: line().optional(),
  quota: quota.optional(),
  status: int32.optional(),
});
export const redemptionSearchQuery = pageQuery.extend({ keyword: queryText });

export type CreateRedemptionBody = z.input<typeof createRedemptionBody>;
export type UpdateRedemptionBody = z.input<typeof updateRedemptionBody>;

/** A user's own redemption: the key, trimmed by the server. */
export const redeemBody = z.object({ key: z.string().optional() });

export const redemptionRoutes = resource('redemptions', {
  'GET /api/redemption/': { auth: 'admin', summary: 'Redemption codes, paged (p from 1; 0 reads as 1)', querystring: pageQuery, response: apiResponse(paged(redemption)) },
  'GET /api/redemption/search': {
    auth: 'admin',
    summary: 'Redemption codes by id or name prefix, paged',
    querystring: redemptionSearchQuery,
    response: apiResponse(paged(redemption)),
  },
  'GET /api/redemption/:id': { auth: 'admin', summary: 'One redemption code', params: idParam, response: apiResponse(redemption) },
  'POST /api/redemption/': {
    auth: 'admin',
    summary: 'Create `count` codes of `quota` each; answers their keys',
    body: createRedemptionBody,
    response: apiResponse(z.array(z.string())),
    // Never `result`: the answer is the new codes themselves.
    audit: { action: 'redemption.create', target: 'redemption', targetId: 'body.name' },
  },
  'PUT /api/redemption/': {
    auth: 'admin',
    summary: 'Edit an unused code (name, quota); `?status_only=true` enables or disables it (never a used one)',
    querystring: z.object({ status_only: queryFlag }),
    body: updateRedemptionBody,
    response: apiResponse(redemption),
    audit: {
      action: 'redemption.update',
      actionBy: { field: 'query.status_only', actions: { true: 'redemption.status' } },
      target: 'redemption',
      targetId: 'body.id',
      snapshot: true,
    },
  },
  'DELETE /api/redemption/invalid': {
    auth: 'admin',
    summary: 'Delete every used or disabled code; answers the count',
    response: apiResponse(z.number().int()),
    audit: { action: 'redemption.delete_invalid', target: 'redemption', result: true },
  },
  'DELETE /api/redemption/:id': {
    auth: 'admin',
    summary: 'Delete a code',
    params: idParam,
    response: apiEmpty,
    audit: { action: 'redemption.delete', target: 'redemption', targetId: 'params.id', snapshot: true },
  },
  'POST /api/user/topup': {
    auth: 'user',
    summary: 'Redeem a code: answers the quota it added',
    body: redeemBody,
    response: apiResponse(z.number().int()),
  },
});
