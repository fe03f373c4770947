import { useQuery } from '@tanstack/react-query';
import { Button, Card, Empty, Flex, Skeleton, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { fetchUserModels, userModelsKey } from '../../../lib/user-models';

/** Spec §9: the model tag list shows 10 models before "more". */
export const MODELS_SHOWN = 10;

/** The models the user may call (GET /api/user/models), as tags: the first ten, then "more". */
export function ModelsCard() {
  const { t } = useTranslation('setting');
  const { t: tc } = useTranslation('common');
  const models = useQuery({ queryKey: userModelsKey, queryFn: fetchUserModels, staleTime: 60_000 });
  const [expanded, setExpanded] = useState(false);
  const list = models.data ?? [];
  const shown = expanded ? list : list.slice(0, MODELS_SHOWN);
  const hidden = list.length - shown.length;

  let body;
  if (models.isPending) {
    body = <Skeleton active title={false} paragraph={{ rows: 2 }} />;
  } else if (models.isError) {
    body = (
      <Flex align="center" gap="small" wrap data-testid="models-error">
        <Typography.Text type="danger">{tc('error.modelList')}</Typography.Text>
        <Button size="small" loading={models.isFetching} onClick={() => void models.refetch()}>
          {t('models.retry')}
        </Button>
      </Flex>
    );
  } else if (list.length === 0) {
    body = <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('models.empty')} />;
  } else {
    body = (
      <Flex gap={8} wrap data-testid="models-tags">
        {shown.map((model) => (
          <Tag key={model} className="mg-flush">
            {model}
          </Tag>
        ))}
        {hidden > 0 && (
          <Button type="link" size="small" onClick={() => setExpanded(true)}>
            {t('models.more', { count: hidden })}
          </Button>
        )}
        {expanded && list.length > MODELS_SHOWN && (
          <Button type="link" size="small" onClick={() => setExpanded(false)}>
            {t('models.less')}
          </Button>
        )}
      </Flex>
    );
  }

  return (
    <Card title={t('models.title')} extra={list.length > 0 ? <Typography.Text type="secondary">{t('models.count', { count: list.length })}</Typography.Text> : undefined}>
      {body}
    </Card>
  );
}
