import type { Plan, PlanBody, PlanPayable, PlanPayOrder, Subscription } from '@modelgate/shared/api';
import { call } from '../../lib/api';

export type { Plan, PlanBody, PlanPayable, PlanPayOrder, Subscription };

export const planKeys = {
  all: ['plan'] as const,
  list: ['plan', 'list'] as const,
  available: ['plan', 'available'] as const,
  payable: (planId: number) => ['plan', 'payable', planId] as const,
  mine: ['plan', 'mine'] as const,
  ofUser: (userId: number) => ['plan', 'user', userId] as const,
  timeZone: ['plan', 'time-zone'] as const,
};

// ---- admin ----

export function fetchPlans(): Promise<Plan[]> {
  return call('GET /api/plan/');
}

export function createPlan(body: PlanBody): Promise<Plan> {
  return call('POST /api/plan/', { body });
}

export function updatePlan(id: number, body: PlanBody): Promise<Plan> {
  return call('PUT /api/plan/', { body: { ...body, id } });
}

export async function deletePlan(id: number): Promise<void> {
  await call('DELETE /api/plan/:id', { params: { id } });
}

export function grantPlan(userId: number, planId: number): Promise<Subscription> {
  return call('POST /api/plan/grant', { body: { user_id: userId, plan_id: planId } });
}

export function fetchUserSubscriptions(userId: number): Promise<Subscription[]> {
  return call('GET /api/plan/subscriptions', { query: { user_id: userId } });
}

export async function revokeSubscription(id: number): Promise<void> {
  await call('POST /api/plan/revoke', { body: { id } });
}

/** The `TimeZone` option (root only): '' = the server's own zone. */
export async function fetchTimeZone(): Promise<string> {
  const options = await call('GET /api/option/');
  return options.find((o) => o.key === 'TimeZone')?.value ?? '';
}

export async function saveTimeZone(value: string): Promise<void> {
  await call('PUT /api/option/', { body: { key: 'TimeZone', value } });
}

// ---- the signed-in user (the wallet) ----

export function fetchAvailablePlans(): Promise<Plan[]> {
  return call('GET /api/user/plan/available');
}

export function fetchMySubscriptions(): Promise<Subscription[]> {
  return call('GET /api/user/plan/');
}

export function buyPlan(planId: number): Promise<Subscription> {
  return call('POST /api/user/plan/buy', { body: { plan_id: planId } });
}

/** What a plan costs through each enabled online payment method. */
export function fetchPlanPayable(planId: number): Promise<PlanPayable> {
  return call('GET /api/user/plan/payable', { query: { plan_id: planId }, silent: true });
}

/** A plan order paid online: where the browser goes to pay it. */
export function payPlan(planId: number, method: string): Promise<PlanPayOrder> {
  return call('POST /api/user/plan/pay', { body: { plan_id: planId, payment_method: method }, silent: true });
}

export function renewSubscription(id: number): Promise<Subscription> {
  return call('POST /api/user/plan/renew', { body: { id } });
}

export async function cancelSubscription(id: number): Promise<void> {
  await call('POST /api/user/plan/cancel', { body: { id } });
}

export function setAutoRenew(id: number, autoRenew: boolean): Promise<Subscription> {
  return call('PUT /api/user/plan/settings', { body: { id, auto_renew: autoRenew } });
}

export async function orderSubscriptions(ids: number[]): Promise<void> {
  await call('PUT /api/user/plan/order', { body: { ids } });
}
