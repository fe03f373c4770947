import { parsePeriodLimits, type WindowMeter } from '@modelgate/shared';
import type { Plan, Subscription } from '@modelgate/shared/api';
import type { PlanRow, UserPlanRow } from '../../db/schema.js';

/** A plan as the console shows it. */
export function planView(r: Omit<PlanRow, 'updated_at'> & { updated_at?: number }, activeSubscriptions: number): Plan {
  return {
    id: Number(r.id),
    name: r.name,
    description: r.description ?? '',
    price: Number(r.price),
    duration_days: Number(r.duration_days),
    allowances: parsePeriodLimits(r.allowances),
    models: r.models ?? '',
    groups: r.groups ?? '',
    fall_through: Number(r.fall_through) !== 0,
    status: Number(r.status),
    created_at: Number(r.created_at),
    active_subscriptions: activeSubscriptions,
  };
}

/** A subscription with the meters of its allowance windows. */
export function subscriptionView(r: UserPlanRow, meters: WindowMeter[]): Subscription {
  return {
    id: Number(r.id),
    user_id: Number(r.user_id),
    plan_id: Number(r.plan_id),
    name: r.name,
    allowances: parsePeriodLimits(r.allowances),
    models: r.models ?? '',
    groups: r.groups ?? '',
    fall_through: Number(r.fall_through) !== 0,
    price: Number(r.price),
    duration_days: Number(r.duration_days),
    status: Number(r.status),
    auto_renew: Number(r.auto_renew) !== 0,
    priority: Number(r.priority),
    starts_at: Number(r.starts_at),
    expires_at: Number(r.expires_at),
    renewals: Number(r.renewals),
    granted_by: Number(r.granted_by),
    created_at: Number(r.created_at),
    ended_at: Number(r.ended_at),
    meters,
  };
}
