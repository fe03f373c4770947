import { formatQuota, PERIOD_WINDOWS, type PeriodLimits } from '@modelgate/shared';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../app/status';
import type { Plan, Subscription } from './api';

/** How plans read in lists: their allowances, what they pay for, how long they last, what they cost. */
export function usePlanText() {
  const { t } = useTranslation('plan');
  const { quotaDisplay } = useStatus();
  const money = (quota: number) => formatQuota(quota, quotaDisplay, 2);
  const allowances = (limits: PeriodLimits): string[] =>
    PERIOD_WINDOWS.flatMap((w) => {
      const cap = limits[w];
      if (!cap) return [];
      const caps = [cap.quota > 0 ? t('allowance.quota', { amount: money(cap.quota) }) : '', cap.requests > 0 ? t('allowance.requests', { count: cap.requests }) : ''].filter(Boolean).join(' · ');
      return [t('allowance.item', { window: t(`limits:periodLimits.window.${w}`), caps })];
    });
  const scope = (p: Pick<Plan, 'models' | 'groups'>): string[] => {
    const out: string[] = [];
    if (p.models) out.push(t('scope.models', { list: p.models.split(',').join(', ') }));
    if (p.groups) out.push(t('scope.groups', { list: p.groups.split(',').join(', ') }));
    return out.length ? out : [t('scope.any')];
  };
  const duration = (days: number) => (days > 0 ? t('duration.days', { count: days }) : t('duration.never'));
  const offer = (p: Pick<Plan | Subscription, 'price' | 'duration_days'>) =>
    p.duration_days > 0 ? t('wallet.price', { price: money(p.price), count: p.duration_days }) : t('wallet.priceForever', { price: money(p.price) });
  return { money, allowances, scope, duration, offer };
}
