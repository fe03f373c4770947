import { normalisePeriodLimits, PERIOD_WINDOWS, type PeriodLimits } from '@modelgate/shared';

/** The form's value of the caps (every window, zeros included) from an entity's stored caps. */
export function periodLimitsFormValue(limits: PeriodLimits | undefined): PeriodLimits {
  return Object.fromEntries(PERIOD_WINDOWS.map((w) => [w, { quota: limits?.[w]?.quota ?? 0, requests: limits?.[w]?.requests ?? 0 }])) as PeriodLimits;
}

/** The caps to send: only the windows that cap something (0 or empty = none). */
export function periodLimitsBody(value: unknown): PeriodLimits {
  return normalisePeriodLimits(value);
}
