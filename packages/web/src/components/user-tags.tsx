import { roleTag } from '@modelgate/shared';
import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';

export function RoleTag({ role }: { role: number }) {
  const { t } = useTranslation();
  const { key, color } = roleTag(role);
  return <Tag color={color}>{t(`role.${key}`)}</Tag>;
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
