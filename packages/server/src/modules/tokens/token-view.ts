import { parsePeriodLimits, TokenStatus } from '@modelgate/shared';
import type { Token } from '@modelgate/shared/api';
import type { TokenRow } from '../../db/schema.js';

/**
 * The status a token really has now: an enabled token past its expiry or out of quota reads as
 * expired or exhausted even before a relay request has noticed and stored it.
 */
export function effectiveTokenStatus(t: Pick<TokenRow, 'status' | 'expired_time' | 'unlimited_quota' | 'remain_quota'>, now: number): number {
  if (t.status !== TokenStatus.Enabled) return t.status;
  if (t.expired_time !== -1 && Number(t.expired_time) < now) return TokenStatus.Expired;
  if (!t.unlimited_quota && Number(t.remain_quota) <= 0) return TokenStatus.Exhausted;
  return t.status;
}

/** A token as the console expects it: key without `sk-`, flags as booleans, limits as a comma string. */
export function tokenView(t: TokenRow, now: number): Token {
  return {
    id: Number(t.id),
    user_id: Number(t.user_id),
    key: t.key,
    status: Number(effectiveTokenStatus(t, now)),
    name: t.name,
    created_time: Number(t.created_time),
    accessed_time: Number(t.accessed_time),
    expired_time: Number(t.expired_time),
    remain_quota: Number(t.remain_quota),
    unlimited_quota: !!t.unlimited_quota,
    model_limits_enabled: !!t.model_limits_enabled,
    model_limits: t.model_limits ?? '',
    allow_ips: t.allow_ips ?? '',
    used_quota: Number(t.used_quota),
    group: t.group ?? '',
    rpm_limit: Number(t.rpm_limit ?? 0),
    tpm_limit: Number(t.tpm_limit ?? 0),
    period_limits: parsePeriodLimits(t.period_limits),
  };
}
