import { tokenStatusTag } from '@modelgate/shared';
import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { Token } from '../api';

export function TokenStatusTag({ token }: { token: Token }) {
  const { t } = useTranslation('token');
  const { key, color } = tokenStatusTag(token.status, token.model_limits_enabled);
  return (
    <Tag color={color} data-status={key}>
      {t(`status.${key}`)}
    </Tag>
  );
}
