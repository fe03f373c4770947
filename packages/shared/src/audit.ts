/**
 * The audit log's vocabulary (docs/security.md#audit-log): the actions an admin or the super admin
 * can take, what they act on, and which recorded values are credentials. The server records and
 * masks with it; the console filters and labels with it (`audit:action.<name>`).
 */
import { isSecretOption } from './option-registry.js';

/** Every recorded action, `<family>.<verb>`; the console translates each one. */
export const AUDIT_ACTIONS = [
  'option.update',
  'option.reset_ratios',
  'channel.create',
  'channel.copy',
  'channel.update',
  'channel.delete',
  'channel.delete_disabled',
  'channel.delete_batch',
  'channel.fix_abilities',
  'channel.tag_set',
  'channel.tag_enable',
  'channel.tag_disable',
  'channel.tag_update',
  'user.create',
  'user.update',
  'user.promote',
  'user.demote',
  'user.enable',
  'user.disable',
  'user.delete',
  'user.hard_delete',
  'user.reset_2fa',
  'redemption.create',
  'redemption.update',
  'redemption.status',
  'redemption.delete',
  'redemption.delete_invalid',
  'log.delete',
  'plan.create',
  'plan.update',
  'plan.delete',
  'plan.grant',
  'plan.revoke',
  'session.revoke',
  // Recorded by the Stripe webhook (no admin route): the payment service refunded or disputed a paid top-up.
  'topup.refund',
  'topup.dispute',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** What an action acts on; `target_id` is that thing's id (an option's key, a tag's name, …). */
export const AUDIT_TARGETS = ['option', 'channel', 'channel_tag', 'user', 'redemption', 'log', 'session', 'topup', 'plan'] as const;
export type AuditTarget = (typeof AUDIT_TARGETS)[number];

/** The families of actions (the part before the dot), for the console's filter. */
export const AUDIT_FAMILIES = [...new Set(AUDIT_ACTIONS.map((a) => a.slice(0, a.indexOf('.'))))];

export function isAuditAction(value: string): value is AuditAction {
  return (AUDIT_ACTIONS as readonly string[]).includes(value);
}

/** What a credential is recorded as: that it was given or changed shows, never its value. */
export const AUDIT_MASK = '******';

/** One changed field: `before` absent for a new value, `after` absent for a removed one. */
export interface AuditChange {
  field: string;
  before?: unknown;
  after?: unknown;
}

/** Field names that hold a credential whatever they belong to. */
const SECRET_FIELDS = new Set(['password', 'password2', 'original_password', 'access_token', 'client_secret', 'secret']);

/**
 * Whether a recorded field holds a credential: passwords and access tokens anywhere; the `key` of
 * a channel (its upstream keys) or a redemption code (the code is the money); an option's value
 * when the option is secret in the option registry — as `value` in the request (`fields.key` names
 * the option) or as the option's own name in a before/after change (`SMTPToken`, `ModelRatio.x`).
 */
export function isSecretAuditField(target: AuditTarget | string, field: string, fields: Readonly<Record<string, unknown>> = {}): boolean {
  if (SECRET_FIELDS.has(field)) return true;
  if (target === 'channel' || target === 'redemption') return field === 'key' || field === 'keys';
  if (target === 'option') {
    if (field === 'value') return typeof fields.key !== 'string' || isSecretOption(fields.key);
    return isSecretOption(field.split('.', 1)[0]!);
  }
  return false;
}

/** `fields` with every credential replaced by AUDIT_MASK (empty values stay empty: "not given" is no secret). */
export function maskAuditFields(target: AuditTarget | string, fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(fields)) {
    out[field] = isSecretAuditField(target, field, fields) && value !== '' && value !== null && value !== undefined ? AUDIT_MASK : value;
  }
  return out;
}

/**
 * C0 and C1 controls (`\p{Cc}`: DEL included) and the bidi formatting characters: the embeddings and
 * overrides U+202A–U+202E, the isolates U+2066–U+2069, the marks U+200E/U+200F and U+061C.
 */
const UNSAFE_AUDIT_CHARS = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/**
 * A string as the audit log stores it: every control or bidi formatting character replaced by a
 * visible `\u{XXXX}` escape. Names and values come from users and admins; raw, a U+202E reorders
 * what the super admin reads ("evil" shown as "live"), and controls forge lines in exports and
 * terminals. Everything else stays as given.
 */
export function escapeAuditText(s: string): string {
  return s.replace(UNSAFE_AUDIT_CHARS, (c) => `\\u{${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}}`);
}
