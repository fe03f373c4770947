import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { ROLE } from '../lib/roles';

export function RoleTag({ role }: { role: number }) {
  const { t } = useTranslation();
  if (role >= ROLE.root) return <Tag color="orange">{t('role.root')}</Tag>;
  if (role >= ROLE.admin) return <Tag color="gold">{t('role.admin')}</Tag>;
  if (role >= ROLE.user) return <Tag color="blue">{t('role.user')}</Tag>;
  return <Tag>{t('role.unknown')}</Tag>;
}

/** Spec §9 group colours: vip/pro yellow, svip/premium red, everything else neutral. */
export function groupColor(group: string): string | undefined {
  const name = group.toLowerCase();
  if (name === 'vip' || name === 'pro') return 'gold';
  if (name === 'svip' || name === 'premium') return 'red';
  return undefined;
}

export function GroupTag({ group }: { group: string }) {
  const name = group || 'default';
  return <Tag color={groupColor(name)}>{name}</Tag>;
}
