import type { Paged, SelfUser, TopUpOrder } from '@modelgate/shared/api';
import { call, callEnvelope } from '../../lib/api';
import i18n from '../../i18n';

export type { SelfUser, TopUpOrder };

export interface OrderQuery {
  keyword: string;
  status: string;
  page: number;
  pageSize: number;
}

export const topUpKeys = {
  self: ['user', 'self'] as const,
  payable: (amount: number) => ['topup', 'payable', amount] as const,
  stripePayable: (amount: number) => ['topup', 'stripe-payable', amount] as const,
  order: (tradeNo: string) => ['topup', 'order', tradeNo] as const,
  orders: (query: OrderQuery) => ['topup', 'orders', query] as const,
  allOrders: ['topup', 'orders'] as const,
};

/** Thrown with the server's text when a reference-style answer (G10) is a failure. */
export class TopUpError extends Error {}

export function fetchSelf(): Promise<SelfUser> {
  return call('GET /api/user/self');
}

/** Redeems a code; answers the quota it added. */
export function redeemCode(key: string): Promise<number> {
  return call('POST /api/user/topup', { body: { key } });
}

/** What `amount` costs, as the server words it ("73.00"); the error text when it refuses. */
export async function fetchPayable(amount: number): Promise<string> {
  const answer = await callEnvelope('POST /api/user/amount', { body: { amount, top_up_code: '' }, silent: true });
  if (!answer.success) throw new TopUpError(answer.data ?? answer.message);
  return answer.data;
}

/** Creates the order; answers the gateway URL and the signed form fields. */
export async function createPayment(amount: number, method: 'zfb' | 'wx'): Promise<{ url: string; fields: Record<string, string> }> {
  const answer = await callEnvelope('POST /api/user/pay', { body: { amount, top_up_code: '', payment_method: method }, silent: true });
  if (!answer.success) throw new TopUpError(answer.data ?? answer.message ?? i18n.t('common:error.unknown'));
  return { url: answer.url, fields: answer.data };
}

/** Takes the browser to the gateway the way the reference console does: a hidden form, posted. */
export function submitToGateway(url: string, fields: Record<string, string>, doc: Document = document): void {
  const form = doc.createElement('form');
  form.method = 'POST';
  form.action = url;
  form.style.display = 'none';
  for (const [name, value] of Object.entries(fields)) {
    const input = doc.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    form.appendChild(input);
  }
  doc.body.appendChild(form);
  form.submit();
}

/** What a Stripe top-up of `amount` costs in the Stripe currency ("15.00"); the error text when refused. */
export async function fetchStripePayable(amount: number): Promise<string> {
  const answer = await callEnvelope('POST /api/user/stripe/amount', { body: { amount }, silent: true });
  if (!answer.success) throw new TopUpError(answer.data ?? answer.message);
  return answer.data;
}

/** Creates the order and its Checkout Session; answers Stripe's hosted page. */
export async function createStripeCheckout(amount: number): Promise<{ url: string; tradeNo: string }> {
  const answer = await callEnvelope('POST /api/user/stripe/pay', { body: { amount }, silent: true });
  if (!answer.success) throw new TopUpError(answer.data ?? answer.message ?? i18n.t('common:error.unknown'));
  return { url: answer.data.url, tradeNo: answer.data.trade_no };
}

export function fetchOwnOrder(tradeNo: string): Promise<TopUpOrder> {
  return call('GET /api/topup/self', { query: { trade_no: tradeNo }, silent: true });
}

export async function fetchOrders(query: OrderQuery): Promise<Paged<TopUpOrder>> {
  const data = await call('GET /api/topup/', { query: { keyword: query.keyword, status: query.status, p: query.page, page_size: query.pageSize } });
  return {
    items: Array.isArray(data?.items) ? data.items : [],
    total: Number(data?.total) || 0,
    page: Number(data?.page) || query.page,
    page_size: Number(data?.page_size) || query.pageSize,
  };
}
