import { Layout, Typography } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { sanitizeHtml } from '../../lib/content';
import { useStatus } from '../status';

export function SiteFooter() {
  const { t } = useTranslation();
  const { status } = useStatus();
  const custom = useMemo(() => (status.footer_html ? sanitizeHtml(status.footer_html) : ''), [status.footer_html]);
  return (
    <Layout.Footer className="mg-footer">
      {custom ? (
        <div className="mg-footer-custom" dangerouslySetInnerHTML={{ __html: custom }} />
      ) : (
        <Typography.Text type="secondary">
          {t('footer.credit', { name: status.system_name || 'ModelGate', version: status.version || t('footer.devVersion') })}
        </Typography.Text>
      )}
    </Layout.Footer>
  );
}
