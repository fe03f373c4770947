import type { ModelPricing } from '@modelgate/shared/api';
import { ApiError, callEnvelope } from '../../lib/api';
import { showError } from '../../lib/feedback';

export type { ModelPricing };

export interface PricingView {
  models: ModelPricing[];
  /** Ratio per group the viewer may use (the default group when signed out). */
  groupRatio: Record<string, number>;
  /** Group → description, for the same groups. */
  usableGroups: Record<string, string>;
}

export const pricingKeys = { all: ['pricing'] as const };

/** `group_ratio` and `usable_group` sit next to `data` (console-api.md G8), so the whole envelope is read. */
export async function fetchPricing(): Promise<PricingView> {
  const body = await callEnvelope('GET /api/pricing');
  if (!body.success) {
    showError(body.message);
    throw new ApiError(body.message, 200);
  }
  return { models: body.data, groupRatio: body.group_ratio, usableGroups: body.usable_group };
}
