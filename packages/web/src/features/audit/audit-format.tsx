import { AUDIT_MASK, channelTypeOf, formatQuota, isAuditAction, roleTag } from '@modelgate/shared';
import { Tag, Typography } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../app/status';
import dayjs from '../../lib/dayjs';

/** Fields holding a quota amount, shown in the console's money unit. */
const QUOTA_FIELDS = new Set(['quota', 'add_quota']);
/** Fields holding a Unix time. */
const TIME_FIELDS = new Set(['deleted_at', 'target_timestamp']);
/** Targets whose `status` has labels (`audit:status.<target>.<n>`). */
const STATUS_TARGETS = new Set(['user', 'channel', 'redemption']);

/**
 * Request fields shown first in the compact cell (what a create or bulk call is about); the rest
 * follow in the order sent, and the detail popover lists them all.
 */
const FIRST_FIELDS = ['name', 'username', 'key', 'value', 'action', 'ids', 'tag', 'count', 'quota', 'add_quota', 'models', 'password', 'status', 'role'];

/** The request's fields, the telling ones first. */
export function orderedRequest(request: Record<string, unknown>): Array<[string, unknown]> {
  const rank = (f: string) => (FIRST_FIELDS.includes(f) ? FIRST_FIELDS.indexOf(f) : FIRST_FIELDS.length);
  return Object.entries(request).sort(([a], [b]) => rank(a) - rank(b));
}

/** How the screen words an entry: action and target labels, field names, values (credentials as "hidden"). */
export function useAuditText() {
  const { t, i18n } = useTranslation('audit');
  const { quotaDisplay } = useStatus();

  /** An option's label from the settings screen, else its key. */
  const optionLabel = (key: string) => t(`setting:option.${key}.label`, { defaultValue: key });

  const actionLabel = (action: string) => (isAuditAction(action) ? t(`action.${action}`) : t('action.unknown', { action }));

  const targetTypeLabel = (type: string) => t(`target.${type}`, { defaultValue: type });

  const fieldLabel = (target: string, field: string, scope: 'request' | 'change'): string => {
    if (target === 'option') {
      if (scope === 'request') return field === 'key' ? t('field.optionKey') : t(`field.${field}`, { defaultValue: field });
      const at = field.indexOf('.');
      return at < 0 ? optionLabel(field) : `${optionLabel(field.slice(0, at))} · ${field.slice(at + 1)}`;
    }
    return t(`field.${field}`, { defaultValue: field });
  };

  const valueText = (target: string, field: string, value: unknown): ReactNode => {
    if (value === AUDIT_MASK) return <Tag className="mg-audit-masked">{t('detail.masked')}</Tag>;
    if (value === undefined || value === null) return <Typography.Text type="secondary">—</Typography.Text>;
    if (value === '') return <Typography.Text type="secondary">{t('detail.empty')}</Typography.Text>;
    if (typeof value === 'boolean') return value ? t('detail.yes') : t('detail.no');
    if (typeof value === 'number') {
      if (QUOTA_FIELDS.has(field) && (target === 'user' || target === 'redemption')) return formatQuota(value, quotaDisplay);
      if (field === 'role' && target === 'user') return t(`common:role.${roleTag(value).key}`);
      // Channel types are product names, the same in every language (the channel screen's own list).
      if (field === 'type' && target === 'channel') return channelTypeOf(value).name;
      if (field === 'status' && STATUS_TARGETS.has(target)) return t(`status.${target}.${value}`, { defaultValue: String(value) });
      if (field === 'auto_ban' && target === 'channel') return value ? t('detail.yes') : t('detail.no');
      if (TIME_FIELDS.has(field) && value > 0) return dayjs.unix(value).format('YYYY-MM-DD HH:mm:ss');
      return value.toLocaleString(i18n.language === 'en' ? 'en-US' : 'zh-CN');
    }
    if (Array.isArray(value)) return value.join(', ');
    return String(value);
  };

  const targetText = (type: string, id: string): string => {
    if (!id) return targetTypeLabel(type);
    if (type === 'option') return id.split(',').map(optionLabel).join(', ');
    return `${targetTypeLabel(type)} ${id}`;
  };

  return { actionLabel, targetTypeLabel, targetText, fieldLabel, valueText };
}
