import { isObj } from '../formats/shared/wire.js';
import type { ChannelTarget, ModelListRequest } from './types.js';

/**
 * How a provider reports the money left on a channel's account (providers-china-and-tasks §7):
 * one or more GETs, each possibly depending on the replies before it, and the balance read from
 * their JSON. An adapter without one answers "not supported by this provider".
 */
export interface BalanceQuery {
  /** The next GET after `replies` (the JSON objects answered so far), or undefined when all were made. */
  request(ch: ChannelTarget, replies: readonly Record<string, unknown>[]): ModelListRequest | undefined;
  /** The balance (USD or the provider's own unit) from every reply, or the provider's refusal in its own words. */
  read(replies: readonly Record<string, unknown>[]): number | { error: string };
}

const trim = (url: string) => url.replace(/\/+$/, '');
const bearer = (ch: ChannelTarget) => ({ authorization: `Bearer ${ch.key}` });
const num = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN);
const checked = (n: number, what: string): number | { error: string } => (Number.isFinite(n) ? n : { error: `the reply has no numeric ${what}` });

/** OpenAI's legacy billing pair: subscription (hard limit), then this period's usage in cents. */
export function openAIBilling(defaultBase: string): BalanceQuery {
  return {
    request(ch, replies) {
      const base = trim(ch.baseUrl || defaultBase);
      if (replies.length === 0) return { url: `${base}/v1/dashboard/billing/subscription`, headers: bearer(ch) };
      if (replies.length > 1) return undefined;
      const now = new Date();
      // With a payment method the period is the calendar month; without, the last 100 days (the reference).
      const start = replies[0]!.has_payment_method ? new Date(now.getFullYear(), now.getMonth(), 1) : new Date(now.getTime() - 100 * 86400_000);
      const day = (d: Date) => d.toISOString().slice(0, 10);
      return { url: `${base}/v1/dashboard/billing/usage?start_date=${day(start)}&end_date=${day(now)}`, headers: bearer(ch) };
    },
    read: ([sub, usage]) => checked(num(sub?.hard_limit_usd ?? 0) - num(usage?.total_usage ?? 0) / 100, 'hard_limit_usd or total_usage'),
  };
}

/** The credit-grants summary resellers copied from OpenAI (API2GPT: `total_remaining`, AIGC2D: `total_available`). */
export function creditGrants(defaultBase: string, field: 'total_remaining' | 'total_available'): BalanceQuery {
  return {
    request: (ch, replies) => (replies.length ? undefined : { url: `${trim(ch.baseUrl || defaultBase)}/dashboard/billing/credit_grants`, headers: bearer(ch) }),
    read: ([r]) => checked(num(r?.[field]), field),
  };
}

/** AIProxy's `getUserOverview` with the key in `Api-Key`: `data.totalPoints`; `success:false` is a refusal. */
export function aiproxyOverview(defaultBase: string): BalanceQuery {
  return {
    request: (ch, replies) => (replies.length ? undefined : { url: `${trim(ch.baseUrl || defaultBase)}/api/report/getUserOverview`, headers: { 'api-key': ch.key } }),
    read([r]) {
      if (r?.success !== true) return { error: typeof r?.message === 'string' && r.message ? r.message : 'AIProxy refused the balance query' };
      return checked(num(isObj(r.data) ? r.data.totalPoints : undefined), 'data.totalPoints');
    },
  };
}

/** OpenRouter's `{base}/v1/credits` (base `…/api`): credits bought minus credits used. */
export function openRouterCredits(defaultBase: string): BalanceQuery {
  return {
    request: (ch, replies) => (replies.length ? undefined : { url: `${trim(ch.baseUrl || defaultBase)}/v1/credits`, headers: bearer(ch) }),
    read([r]) {
      const d = isObj(r?.data) ? r.data : {};
      return checked(num(d.total_credits) - num(d.total_usage), 'data.total_credits or data.total_usage');
    },
  };
}

/** SiliconFlow's `{base}/v1/user/info`: `code` must be 20000; `data.totalBalance` (a string). */
export function siliconFlowUserInfo(defaultBase: string): BalanceQuery {
  return {
    request: (ch, replies) => (replies.length ? undefined : { url: `${trim(ch.baseUrl || defaultBase)}/v1/user/info`, headers: bearer(ch) }),
    read([r]) {
      if (r?.code !== 20000) return { error: typeof r?.message === 'string' && r.message ? r.message : `code ${String(r?.code)}` };
      return checked(num(isObj(r.data) ? r.data.totalBalance : undefined), 'data.totalBalance');
    },
  };
}
