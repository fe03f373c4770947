import { useQuery } from '@tanstack/react-query';
import { Card, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../app/session';
import { LinkButton } from '../../components/link-button';
import { PageLoading } from '../../components/page-loading';
import { RichContent } from '../../components/rich-content';
import { isRoot } from '../../lib/roles';
import { aboutKeys, fetchAbout } from './api';

export default function AboutPage() {
  const { t } = useTranslation('home');
  const { user } = useSession();
  const about = useQuery({
    queryKey: aboutKeys.content,
    queryFn: fetchAbout,
    placeholderData: () => localStorage.getItem('about') ?? undefined,
  });

  if (about.data === undefined && about.isPending) return <PageLoading />;
  const content = about.data ?? '';
  if (content.trim() === '') {
    return (
      <Card title={t('aboutTitle')}>
        <Typography.Paragraph>{t('aboutEmpty')}</Typography.Paragraph>
        <Typography.Paragraph type="secondary">{t('aboutProject')}</Typography.Paragraph>
        {isRoot(user) && <LinkButton to="/setting?tab=other">{t('aboutEdit')}</LinkButton>}
      </Card>
    );
  }
  return <RichContent content={content} frameTitle={t('aboutTitle')} />;
}
