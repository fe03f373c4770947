import { z } from 'zod';
import { resource } from './contract.js';
import { apiResponse, paged } from './envelope.js';
import { optionalInt, pageQuery, queryText, queryTimestamp } from './fields.js';

/** One changed field of the target; a credential's value is AUDIT_MASK on both sides. */
export const auditChange = z
  .object({ field: z.string(), before: z.unknown().optional(), after: z.unknown().optional() })
  .meta({ id: 'AuditChange' });

/**
 * One admin or root action (docs/security.md#audit-log): who (id, name and role at the time),
 * when (Unix seconds), from where (the client IP as rate limits see it, the user agent), what
 * (`action`, `target_type`, `target_id`), the request's fields and the target's changed fields
 * with credentials masked, the answer's `data` where it is a count or a new id, and the outcome.
 */
export const auditEntry = z
  .object({
    id: z.number().int(),
    created_at: z.number().int(),
    actor_id: z.number().int(),
    actor_name: z.string(),
    actor_role: z.number().int(),
    ip: z.string(),
    user_agent: z.string(),
    action: z.string(),
    target_type: z.string(),
    target_id: z.string(),
    success: z.boolean(),
    /** The failure's message, in the language of the request that failed. */
    message: z.string(),
    request: z.record(z.string(), z.unknown()),
    changes: z.array(auditChange),
    /** More changed fields than an entry keeps (the first ones are kept). */
    changes_truncated: z.number().int(),
    result: z.unknown().optional(),
  })
  .meta({ id: 'AuditEntry' });
export type AuditEntry = z.infer<typeof auditEntry>;

/**
 * `actor`: a username or a user id; `action`: an action (`user.update`) or a family (`user`);
 * `target`: the target's id (`target_type` narrows it); `success`: 1 or 0; Unix-second bounds.
 */
export const auditFilter = z.object({
  actor: queryText,
  action: queryText,
  target_type: queryText,
  target: queryText,
  success: optionalInt(0, 1),
  start_timestamp: queryTimestamp,
  end_timestamp: queryTimestamp,
});
export type AuditFilterQuery = z.input<typeof auditFilter>;

export const auditRoutes = resource('audit', {
  'GET /api/audit/': {
    auth: 'root',
    summary: 'The audit log: admin and root actions, newest first, paged (`size` or `page_size`)',
    description: 'Super admin only: admins act under this record and cannot read it.',
    querystring: pageQuery.extend({ size: optionalInt(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER) }).extend(auditFilter.shape),
    response: apiResponse(paged(auditEntry)),
  },
});
