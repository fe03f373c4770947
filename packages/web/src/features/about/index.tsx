import { useQuery } from '@tanstack/react-query';
import { Card, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { PageLoading } from '../../components/page-loading';
import { RichContent } from '../../components/rich-content';
import { aboutKeys, fetchAbout } from './api';

export default function AboutPage() {
  const { t } = useTranslation('home');
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
      </Card>
    );
  }
  return <RichContent content={content} frameTitle={t('aboutTitle')} />;
}
