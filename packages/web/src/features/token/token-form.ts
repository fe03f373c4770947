import { DEFAULT_TOKEN_QUOTA, periodLimitsProblem, type PeriodLimits } from '@modelgate/shared';
import { periodLimitsBody, periodLimitsFormValue } from '../../lib/period-limits';
import { randomAlphanumeric } from '../../lib/random';
import { formatExpiry, parseExpiry } from '../../lib/token-expiry';
import type { TokenBody } from '@modelgate/shared/api';
import type { Token } from './api';

export interface TokenFormValues {
  name: string;
  /** 'yyyy-MM-dd HH:mm:ss' or '' for never. */
  expiry: string;
  remain_quota: number;
  unlimited_quota: boolean;
  count: number;
  model_limits_enabled: boolean;
  model_limits: string[];
  allow_ips: string;
  group: string;
  /** Requests and tokens per minute; 0 = no limit. */
  rpm_limit: number;
  tpm_limit: number;
  /** Caps per window (components/period-limits-fields.tsx). */
  period_limits: PeriodLimits;
}

export const COUNT_PRESETS = [10, 20, 30, 100];

export const DEFAULT_TOKEN_VALUES: TokenFormValues = {
  name: '',
  expiry: '',
  remain_quota: DEFAULT_TOKEN_QUOTA,
  unlimited_quota: false,
  count: 1,
  model_limits_enabled: false,
  model_limits: [],
  allow_ips: '',
  group: '',
  rpm_limit: 0,
  tpm_limit: 0,
  period_limits: periodLimitsFormValue(undefined),
};

export function tokenToFormValues(token: Token): TokenFormValues {
  return {
    name: token.name ?? '',
    expiry: formatExpiry(token.expired_time),
    remain_quota: token.remain_quota ?? 0,
    unlimited_quota: !!token.unlimited_quota,
    count: 1,
    model_limits_enabled: !!token.model_limits_enabled,
    model_limits: (token.model_limits ?? '')
      .split(',')
      .map((model) => model.trim())
      .filter(Boolean),
    allow_ips: token.allow_ips ?? '',
    group: token.group ?? '',
    rpm_limit: token.rpm_limit ?? 0,
    tpm_limit: token.tpm_limit ?? 0,
    period_limits: periodLimitsFormValue(token.period_limits),
  };
}

export type TokenFormProblem = 'nameRequired' | 'badExpiry' | 'badQuota' | 'badCount' | 'badLimit' | 'badPeriodLimit';

export type TokenFormResult = { problem: TokenFormProblem } | { inputs: Required<TokenBody>[] };

/**
 * Spec §5 token rules. In create mode returns `count` request bodies: the first keeps the name,
 * each extra one gets `-` plus 6 random alphanumerics so the batch is distinguishable.
 */
export function buildTokenInputs(
  values: TokenFormValues,
  mode: 'create' | 'edit',
  suffix: () => string = () => randomAlphanumeric(6),
): TokenFormResult {
  const name = (values.name ?? '').trim();
  if (!name) return { problem: 'nameRequired' };
  const expiredTime = parseExpiry(values.expiry ?? '');
  if (expiredTime === null) return { problem: 'badExpiry' };
  const quota = Number(values.remain_quota ?? 0);
  if (!values.unlimited_quota && (!Number.isInteger(quota) || quota < 0)) return { problem: 'badQuota' };
  const count = mode === 'create' && !values.unlimited_quota ? Number(values.count ?? 1) : 1;
  if (!Number.isInteger(count) || count < 1) return { problem: 'badCount' };
  const rpm = Number(values.rpm_limit ?? 0);
  const tpm = Number(values.tpm_limit ?? 0);
  if (![rpm, tpm].every((n) => Number.isSafeInteger(n) && n >= 0)) return { problem: 'badLimit' };
  const periods = periodLimitsBody(values.period_limits);
  if (periodLimitsProblem(values.period_limits ?? {}) !== null) return { problem: 'badPeriodLimit' };

  const base: Omit<Required<TokenBody>, 'name'> = {
    remain_quota: Number.isInteger(quota) && quota >= 0 ? quota : 0,
    expired_time: expiredTime,
    unlimited_quota: !!values.unlimited_quota,
    model_limits_enabled: !!values.model_limits_enabled,
    model_limits: values.model_limits_enabled ? (values.model_limits ?? []).join(',') : '',
    allow_ips: (values.allow_ips ?? '')
      .split('\n')
      .map((ip) => ip.trim())
      .filter(Boolean)
      .join('\n'),
    group: values.group ?? '',
    rpm_limit: rpm,
    tpm_limit: tpm,
    period_limits: periods,
  };
  const inputs = Array.from({ length: count }, (_, index) => ({
    ...base,
    name: index === 0 ? name : `${name}-${suffix()}`,
  }));
  return { inputs };
}
