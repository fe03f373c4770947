import {
  fillMessage,
  formatInZone,
  formatQuota,
  PERIOD_WINDOWS,
  periodAt,
  resolveTimeZone,
  serverMessage,
  type Lang,
  type PeriodLimits,
  type PeriodWindow,
  type QuotaDisplay,
  type ServerMessageCode,
  type WindowMeter,
} from '@modelgate/shared';
import type { PlanSpec, WindowBlock, WindowSpec } from '../ledger/ledger.js';
import { planAccount, tokenAccount, userAccount, windowMeters, type MeterSource } from '../modules/plans/window-meters.js';
import type { RelayContext } from './relay-context.js';
import { RelayError } from './relay-error.js';
import type { CachedPlan } from './auth-cache.js';
import type { RelayAuth } from './token-auth.js';

/**
 * Periodic limits and plans on the relay path (docs/ledger.md "Windows and plans"): which windows
 * a request counts against and which subscriptions may pay for it, from the cached user and token
 * alone — a caller with neither costs nothing more. The ledger decides on them in the reservation.
 */

/** The windows of one account's caps, each with the period a request would open now. */
export function windowSpecs(account: string, limits: PeriodLimits | null | undefined, now: number, tz: string): WindowSpec[] {
  if (!limits) return [];
  const out: WindowSpec[] = [];
  for (const w of PERIOD_WINDOWS) {
    const cap = limits[w];
    if (!cap || (cap.quota <= 0 && cap.requests <= 0)) continue;
    const p = periodAt(w, now, tz);
    out.push({ account, window: w, quota: cap.quota, requests: cap.requests, start: p.start, end: p.end });
  }
  return out;
}

/** A subscription pays for a request when it is still running and covers the model and the group. */
export function planCovers(p: CachedPlan, model: string, group: string, now: number): boolean {
  if (p.expiresAt > 0 && p.expiresAt <= now) return false;
  if (p.models && !p.models.has(model)) return false;
  if (p.groups && !p.groups.has(group)) return false;
  return true;
}

export interface RequestWindows {
  windows?: WindowSpec[];
  plans?: PlanSpec[];
  fallThrough?: boolean;
  /** The zone calendar windows are counted in (for a refusal's refill time). */
  tz: string;
}

/** How the site shows quota (a refusal names a quota cap in money when the site does). */
export function quotaDisplay(ctx: Pick<RelayContext, 'options'>): QuotaDisplay {
  return { quotaPerUnit: ctx.options.num('QuotaPerUnit'), displayInCurrency: ctx.options.bool('DisplayInCurrencyEnabled') };
}

/** What the reservation of `model` counts against; empty for a caller with no limits and no plans. */
export function requestWindows(ctx: Pick<RelayContext, 'options'>, auth: RelayAuth, model: string, now: number): RequestWindows {
  const { user, token } = auth;
  if (!user.periodLimits && !token.periodLimits && !user.plans.length) return { tz: '' };
  const tz = resolveTimeZone(ctx.options.str('TimeZone'));
  const windows = [...windowSpecs(userAccount(user.id), user.periodLimits, now, tz), ...windowSpecs(tokenAccount(token.id), token.periodLimits ?? null, now, tz)];
  const covering = user.plans.filter((p) => planCovers(p, model, auth.group, now));
  const plans = covering.map((p) => ({ id: p.id, windows: windowSpecs(planAccount(p.id), p.allowances, now, tz) }));
  // The wallet pays past the plans only if every plan that could have paid lets it.
  const fallThrough = covering.every((p) => p.fallThrough);
  return { tz, windows: windows.length ? windows : undefined, plans: plans.length ? plans : undefined, fallThrough };
}

const WINDOW_NAME: Record<PeriodWindow, ServerMessageCode> = {
  '5h': 'PERIOD_WINDOW_5H',
  day: 'PERIOD_WINDOW_DAY',
  week: 'PERIOD_WINDOW_WEEK',
  month: 'PERIOD_WINDOW_MONTH',
};

/** The 429 for a window the request cannot fit in: whose window, which one, its cap and when it refills (Retry-After). */
export function windowRefusal(lang: Lang, auth: RelayAuth, block: WindowBlock, tz: string, display: QuotaDisplay): RelayError {
  const kind = block.account[0];
  const code: ServerMessageCode = kind === 's' ? 'RELAY_PLAN_PERIOD_LIMITED' : kind === 't' ? 'RELAY_TOKEN_PERIOD_LIMITED' : 'RELAY_USER_PERIOD_LIMITED';
  const plan = kind === 's' ? auth.user.plans.find((p) => p.id === Number(block.account.slice(1)))?.name ?? '' : '';
  const message = fillMessage(serverMessage(code, lang), {
    window: serverMessage(WINDOW_NAME[block.window], lang),
    unit: serverMessage(block.unit === 'quota' ? 'PERIOD_UNIT_QUOTA' : 'PERIOD_UNIT_REQUESTS', lang),
    limit: block.unit === 'quota' ? formatQuota(block.limit, display) : block.limit,
    refill: `${formatInZone(block.refillAt, tz)} (${tz})`,
    plan,
  });
  const err = new RelayError(429, 'new_api_error', 'period_limit_exceeded', message);
  err.retryAfterSec = Math.max(1, block.refillAt - Math.floor(Date.now() / 1000));
  return err;
}

/** The consume log's note of who paid, for a caller with plans: the subscription, or the wallet past them. */
export function payerNote(auth: RelayAuth, paidBy: number): Record<string, unknown> | undefined {
  if (!auth.user.plans.length) return undefined;
  if (!paidBy) return { billing_source: 'wallet' };
  const p = auth.user.plans.find((x) => x.id === paidBy);
  return { billing_source: 'plan', plan_id: paidBy, plan_name: p?.name ?? '' };
}

/**
 * The windows that bound a key (the key-usage endpoints): the token's own, its user's and the
 * user's running plans, as meters. Nothing is read for a key with none.
 */
export async function keyWindows(ctx: Pick<RelayContext, 'db' | 'options'>, auth: RelayAuth): Promise<WindowMeter[]> {
  const { user, token } = auth;
  const now = Math.floor(Date.now() / 1000);
  const sources: MeterSource[] = [];
  if (token.periodLimits) sources.push({ scope: 'token', id: token.id, name: token.name, account: tokenAccount(token.id), limits: token.periodLimits });
  if (user.periodLimits) sources.push({ scope: 'user', id: user.id, name: '', account: userAccount(user.id), limits: user.periodLimits });
  for (const p of user.plans) {
    if (p.expiresAt === 0 || p.expiresAt > now) sources.push({ scope: 'plan', id: p.id, name: p.name, account: planAccount(p.id), limits: p.allowances });
  }
  if (!sources.length) return [];
  return windowMeters(ctx.db, sources, resolveTimeZone(ctx.options.str('TimeZone')), now);
}
