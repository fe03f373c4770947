import { Spin } from 'antd';
import { useTranslation } from 'react-i18next';

export function PageLoading() {
  const { t } = useTranslation();
  return (
    <div className="mg-page-loading" role="status" aria-live="polite">
      <Spin description={t('state.loading')} />
    </div>
  );
}
