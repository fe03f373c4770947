import { Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { LinkButton } from './link-button';

export function Forbidden() {
  const { t } = useTranslation();
  return (
    <Result
      status="403"
      title={t('forbidden.title')}
      subTitle={t('forbidden.description')}
      extra={
        <LinkButton to="/" type="primary">
          {t('action.backHome')}
        </LinkButton>
      }
    />
  );
}
