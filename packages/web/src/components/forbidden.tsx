import { Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { LinkButton } from './link-button';

/** `root`: a super-admin screen (the audit log), which admins may not open either. */
export function Forbidden({ root = false }: { root?: boolean }) {
  const { t } = useTranslation();
  return (
    <Result
      status="403"
      title={t('forbidden.title')}
      subTitle={t(root ? 'forbidden.rootDescription' : 'forbidden.description')}
      extra={
        <LinkButton to="/" type="primary">
          {t('action.backHome')}
        </LinkButton>
      }
    />
  );
}
