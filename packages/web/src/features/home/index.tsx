import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { PageLoading } from '../../components/page-loading';
import { RichContent } from '../../components/rich-content';
import { fetchHomeContent, homeKeys } from './api';
import { DefaultHome } from './components/default-home';
import { NoticeModal } from './components/notice-modal';

export default function HomePage() {
  const { t } = useTranslation('home');
  const content = useQuery({
    queryKey: homeKeys.content,
    queryFn: fetchHomeContent,
    placeholderData: () => localStorage.getItem('home_page_content') ?? undefined,
  });

  let body;
  if (content.data === undefined) body = content.isPending ? <PageLoading /> : <DefaultHome />;
  else if (content.data.trim() === '') body = <DefaultHome />;
  else body = <RichContent content={content.data} frameTitle={t('frameTitle')} />;

  return (
    <>
      <NoticeModal />
      {body}
    </>
  );
}
