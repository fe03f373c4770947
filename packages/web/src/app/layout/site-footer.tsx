import { Layout } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { SecondaryText } from '../../components/shell-text';
import { useStatus } from '../status';

type Sanitised = { source: string; html: string | null };

/**
 * The admin's footer, Markdown or HTML (the shared renderer passes HTML through), sanitised. The
 * renderer is fetched only when there is a footer, so the pages of a site without one (and the
 * sign-in page) do not carry it. Until it arrives the
 * footer stays empty rather than flashing the default line; `null` if it cannot be fetched.
 */
function useSanitisedFooter(source: string): Sanitised | undefined {
  const [done, setDone] = useState<Sanitised>();
  useEffect(() => {
    if (!source) return;
    let live = true;
    import('../../lib/content').then(
      ({ renderMarkdown }) => live && setDone({ source, html: renderMarkdown(source) }),
      () => live && setDone({ source, html: null }),
    );
    return () => {
      live = false;
    };
  }, [source]);
  return done?.source === source ? done : undefined;
}

export function SiteFooter() {
  const { t } = useTranslation();
  const { status } = useStatus();
  const source = status.footer_html ?? '';
  const sanitised = useSanitisedFooter(source);
  // undefined while the sanitiser is on its way; empty (nothing left, or no sanitiser) shows the credit.
  const custom = source ? sanitised?.html : '';
  const credit = (
    <SecondaryText>
      {t('footer.credit', { name: status.system_name || 'ModelGate', version: status.version || t('footer.devVersion') })}
    </SecondaryText>
  );
  return (
    <Layout.Footer className="mg-footer">
      {custom === undefined ? null : custom ? <div className="mg-footer-custom" dangerouslySetInnerHTML={{ __html: custom }} /> : credit}
    </Layout.Footer>
  );
}
