import { useQuery } from '@tanstack/react-query';
import { Descriptions, Empty, Modal, Skeleton } from 'antd';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import { GroupTag } from '../../../components/user-tags';
import { formatNumber, formatQuota } from '@modelgate/shared';
import { fetchLogUser, logKeys } from '../api';

/** Admin: who made a call (GET /api/user/{id}). */
export function UserInfoModal({ userId, onClose }: { userId: number | null; onClose: () => void }) {
  const { t } = useTranslation('log');
  const { quotaDisplay } = useStatus();
  const user = useQuery({
    queryKey: logKeys.user(userId ?? 0),
    queryFn: () => fetchLogUser(userId!),
    enabled: userId !== null,
    retry: false,
  });
  const data = user.data;
  return (
    <Modal open={userId !== null} title={t('user.title')} onCancel={onClose} footer={null} destroyOnHidden>
      {user.isError ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('user.loadFailed')} />
      ) : user.isPending ? (
        <Skeleton active paragraph={{ rows: 4 }} />
      ) : data ? (
        <Descriptions column={1} size="small" bordered>
          <Descriptions.Item label={t('user.username')}>{data.username}</Descriptions.Item>
          <Descriptions.Item label={t('user.displayName')}>{data.display_name || '-'}</Descriptions.Item>
          <Descriptions.Item label={t('user.group')}>
            <GroupTag group={data.group ?? ''} />
          </Descriptions.Item>
          <Descriptions.Item label={t('user.balance')}>{formatQuota(data.quota ?? 0, quotaDisplay)}</Descriptions.Item>
          <Descriptions.Item label={t('user.used')}>{formatQuota(data.used_quota ?? 0, quotaDisplay)}</Descriptions.Item>
          <Descriptions.Item label={t('user.requests')}>{formatNumber(data.request_count ?? 0)}</Descriptions.Item>
          <Descriptions.Item label={t('user.invited')}>{data.aff_count ?? 0}</Descriptions.Item>
          <Descriptions.Item label={t('user.affQuota')}>{formatQuota(data.aff_history_quota ?? 0, quotaDisplay)}</Descriptions.Item>
          <Descriptions.Item label={t('user.inviter')}>{data.inviter_id ? data.inviter_id : t('user.noInviter')}</Descriptions.Item>
        </Descriptions>
      ) : (
        <Skeleton paragraph={{ rows: 2 }} />
      )}
    </Modal>
  );
}
