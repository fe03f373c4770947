import { isObj } from '../formats/shared/wire.js';
import { stripV1, trimBase } from './base-url.js';
import type { BalanceQuery, ChannelTarget } from './types.js';

export type { BalanceContext, BalanceQuery } from './types.js';

const bearer = (ch: ChannelTarget) => ({ authorization: `Bearer ${ch.key}` });
const num = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN);
const checked = (n: number, what: string): number | { error: string } => (Number.isFinite(n) ? n : { error: `the reply has no numeric ${what}` });

/** OpenAI's legacy billing pair: subscription (hard limit), then this period's usage in cents. */
export function openAIBilling(defaultBase: string): BalanceQuery {
  return {
    request(ch, replies) {
      const base = stripV1(ch.baseUrl || defaultBase);
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
    request: (ch, replies) => (replies.length ? undefined : { url: `${trimBase(ch.baseUrl || defaultBase)}/dashboard/billing/credit_grants`, headers: bearer(ch) }),
    read: ([r]) => checked(num(r?.[field]), field),
  };
}

/** AIProxy's `getUserOverview` with the key in `Api-Key`: `data.totalPoints`; `success:false` is a refusal. */
export function aiproxyOverview(defaultBase: string): BalanceQuery {
  return {
    request: (ch, replies) => (replies.length ? undefined : { url: `${trimBase(ch.baseUrl || defaultBase)}/api/report/getUserOverview`, headers: { 'api-key': ch.key } }),
    read([r]) {
      if (r?.success !== true) return { error: typeof r?.message === 'string' && r.message ? r.message : 'AIProxy refused the balance query' };
      return checked(num(isObj(r.data) ? r.data.totalPoints : undefined), 'data.totalPoints');
    },
  };
}

/** OpenRouter's `{base}/v1/credits` (base `…/api`): credits bought minus credits used. */
export function openRouterCredits(defaultBase: string): BalanceQuery {
  return {
    request: (ch, replies) => (replies.length ? undefined : { url: `${trimBase(ch.baseUrl || defaultBase)}/v1/credits`, headers: bearer(ch) }),
    read([r]) {
      const d = isObj(r?.data) ? r.data : {};
      return checked(num(d.total_credits) - num(d.total_usage), 'data.total_credits or data.total_usage');
    },
  };
}

/** SiliconFlow's `{base}/v1/user/info`: `code` must be 20000; `data.totalBalance` (a string). */
export function siliconFlowUserInfo(defaultBase: string): BalanceQuery {
  return {
    request: (ch, replies) => (replies.length ? undefined : { url: `${trimBase(ch.baseUrl || defaultBase)}/v1/user/info`, headers: bearer(ch) }),
    read([r]) {
      if (r?.code !== 20000) return { error: typeof r?.message === 'string' && r.message ? r.message : `code ${String(r?.code)}` };
      return checked(num(isObj(r.data) ? r.data.totalBalance : undefined), 'data.totalBalance');
    },
  };
}

/**
 * Moonshot's `{base}/v1/users/me/balance`: `data.available_balance` (cash plus vouchers). The reply
 * names no currency: api.moonshot.cn accounts are in yuan, api.moonshot.ai accounts in dollars, so
 * the channel's host decides (any host but `*.moonshot.ai` is read as yuan and converted).
 */
export function moonshotBalance(defaultBase: string): BalanceQuery {
  return {
    request: (ch, replies) => (replies.length ? undefined : { url: `${trimBase(ch.baseUrl || defaultBase)}/v1/users/me/balance`, headers: bearer(ch) }),
    read([r], { ch, cnyPerUsd }) {
      if (r?.status === false || (r?.code !== undefined && r.code !== 0)) return { error: typeof r?.error === 'string' && r.error ? r.error : `code ${String(r?.code)}` };
      const available = num(isObj(r?.data) ? r.data.available_balance : undefined);
      let host = '';
      try {
        host = new URL(ch.baseUrl || defaultBase).hostname;
      } catch {
        // an unparsable base URL: read as the default (yuan)
      }
      return checked(/(^|\.)moonshot\.ai$/.test(host) ? available : available / cnyPerUsd, 'data.available_balance');
    },
  };
}

/**
 * DeepSeek's `{base}/user/balance`: `balance_infos[]` with `total_balance` (a string) per currency,
 * USD or CNY; yuan are converted at the Price option's rate and the entries summed.
 * `is_available:false` with no entries is a zero balance, not an error.
 */
export function deepseekBalance(defaultBase: string): BalanceQuery {
  return {
    request: (ch, replies) => (replies.length ? undefined : { url: `${trimBase(ch.baseUrl || defaultBase)}/user/balance`, headers: bearer(ch) }),
    read([r], { cnyPerUsd }) {
      if (!Array.isArray(r?.balance_infos)) return { error: 'the reply has no balance_infos' };
      let usd = 0;
      for (const info of r.balance_infos) {
        if (!isObj(info)) continue;
        const amount = num(info.total_balance);
        if (!Number.isFinite(amount)) return { error: 'the reply has no numeric total_balance' };
        if (info.currency === 'USD') usd += amount;
        else if (info.currency === 'CNY') usd += amount / cnyPerUsd;
        else return { error: `unknown currency ${String(info.currency)}` };
      }
      return usd;
    },
  };
}
