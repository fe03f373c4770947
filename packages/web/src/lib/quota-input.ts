import { QUOTA_MAX } from '@modelgate/shared';
import type { FormRule } from 'antd';
import i18n from '../i18n';

/**
 * Quota inputs (user, token, redemption): whole numbers JavaScript holds exactly, so a long number
 * typed is refused in words ("quota must be between 0 and N") instead of being rounded and then
 * refused by the server under its field name with a negative minimum (issue 35). The forms use
 * these rules rather than InputNumber's `max`, which clamps a long number silently on blur; the
 * settings' generic number fields keep `max={QUOTA_INPUT_MAX}` as a bound.
 */
export const QUOTA_INPUT_MAX = QUOTA_MAX;

const given = (v: unknown) => v !== null && v !== undefined && v !== '';

/** The value itself within [min, QUOTA_MAX]. */
export function amountRule(min = 0): FormRule {
  return {
    validator: async (_rule, value: unknown) => {
      const n = Number(value);
      if (!given(value) || (Number.isSafeInteger(n) && n >= min && n <= QUOTA_MAX)) return;
      throw new Error(i18n.t('common:quotaInput.range', { min, max: QUOTA_MAX }));
    },
  };
}

/** A delta whose result (`base + delta`) must stay within [0, QUOTA_MAX]. */
export function amountTotalRule(base: () => unknown): FormRule {
  return {
    validator: async (_rule, value: unknown) => {
      if (!given(value)) return;
      const total = (Number(base()) || 0) + Number(value);
      if (Number.isSafeInteger(Number(value)) && Number.isSafeInteger(total) && total >= 0 && total <= QUOTA_MAX) return;
      throw new Error(i18n.t('common:quotaInput.total', { max: QUOTA_MAX }));
    },
  };
}
