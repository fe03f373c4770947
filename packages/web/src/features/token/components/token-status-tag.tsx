import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { tokenStatusKey, type Token, type TokenStatusKey } from '../api';

const COLORS: Record<TokenStatusKey, string> = {
  enabled: 'green',
  limited: 'cyan',
  disabled: 'red',
  expired: 'gold',
  exhausted: 'default',
  unknown: 'default',
};

export function TokenStatusTag({ token }: { token: Token }) {
  const { t } = useTranslation('token');
  const key = tokenStatusKey(token);
  return (
    <Tag color={COLORS[key]} data-status={key}>
      {t(`status.${key}`)}
    </Tag>
  );
}
