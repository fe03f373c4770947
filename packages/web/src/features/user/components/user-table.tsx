import { KeyOutlined, SafetyCertificateOutlined } from '@ant-design/icons';
import { Table, Tag, Tooltip, Typography, type TableProps } from 'antd';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import { GroupTag, RoleTag } from '../../../components/user-tags';
import { formatNumber, formatQuota, userStatusTag } from '@modelgate/shared';
import { listPagination } from '../../../lib/pagination';
import { isCancelled, type ManageAction, type User, type UserListItem } from '../api';
import { UserRowActions } from './user-row-actions';
import { ListEmpty } from '../../../components/list-empty';
import { LIST_TABLE_SCROLL } from '../../../lib/table';

interface UserTableProps {
  users: UserListItem[];
  loading: boolean;
  page: number;
  pageSize: number;
  total: number;
  busyId: number | null;
  onPageChange: (page: number, pageSize: number) => void;
  onManage: (user: User, action: ManageAction) => void;
  onEdit: (user: User) => void;
}

function UserStatusTag({ user }: { user: User }) {
  const { t } = useTranslation('user');
  if (isCancelled(user)) return <Tag color="default">{t('status.cancelled')}</Tag>;
  const { key, color } = userStatusTag(user.status);
  return <Tag color={color}>{t(`status.${key}`)}</Tag>;
}

/** Which second factors the user has: TOTP and/or passkeys (docs/security.md#second-factor). */
function SecondFactorTags({ factors }: { factors: UserListItem['two_factor'] | undefined }) {
  const { t } = useTranslation('user');
  if (!factors || (!factors.totp && factors.passkeys === 0)) return <Tag>{t('twoFactor.none')}</Tag>;
  return (
    <div className="mg-tag-stack">
      {factors.totp && (
        <Tooltip title={t('twoFactor.totpHint')}>
          <Tag color="green" icon={<SafetyCertificateOutlined aria-hidden />}>
            {t('twoFactor.totp')}
          </Tag>
        </Tooltip>
      )}
      {factors.passkeys > 0 && (
        <Tooltip title={t('twoFactor.passkeysHint')}>
          <Tag color="geekblue" icon={<KeyOutlined aria-hidden />}>
            {t('twoFactor.passkeys', { count: factors.passkeys })}
          </Tag>
        </Tooltip>
      )}
    </div>
  );
}

export function UserTable(props: UserTableProps) {
  const { t } = useTranslation('user');
  const { quotaDisplay } = useStatus();

  const columns: TableProps<UserListItem>['columns'] = [
    { title: t('column.id'), dataIndex: 'id', width: 70 },
    {
      title: t('column.username'),
      dataIndex: 'username',
      render: (_, user) => (
        <div>
          <Typography.Text strong>{user.username}</Typography.Text>
          {user.display_name && user.display_name !== user.username && (
            <div>
              <Typography.Text type="secondary">{user.display_name}</Typography.Text>
            </div>
          )}
          {user.email && (
            <div>
              <Typography.Text type="secondary" className="mg-small">
                {user.email}
              </Typography.Text>
            </div>
          )}
        </div>
      ),
    },
    { title: t('column.group'), dataIndex: 'group', render: (group: string) => <GroupTag group={group} /> },
    // Role and status sit before the wide usage and invitation columns: at 1366 px those scroll under the fixed actions.
    { title: t('column.role'), dataIndex: 'role', render: (role: number) => <RoleTag role={role} /> },
    { title: t('column.status'), key: 'status', render: (_, user) => <UserStatusTag user={user} /> },
    { title: t('column.twoFactor'), key: 'two_factor', render: (_, user) => <SecondFactorTags factors={user.two_factor} /> },
    {
      title: t('column.quota'),
      key: 'quota',
      render: (_, user) => (
        <div className="mg-tag-stack">
          <Tooltip title={t('column.balance')}>
            <Tag color="green">{t('column.balanceValue', { value: formatQuota(user.quota, quotaDisplay) })}</Tag>
          </Tooltip>
          <Tooltip title={t('column.used')}>
            <Tag color="blue">{t('column.usedValue', { value: formatQuota(user.used_quota, quotaDisplay) })}</Tag>
          </Tooltip>
          <Tooltip title={t('column.requests')}>
            <Tag>{t('column.requestsValue', { value: formatNumber(user.request_count ?? 0) })}</Tag>
          </Tooltip>
        </div>
      ),
    },
    {
      title: t('column.invite'),
      key: 'invite',
      render: (_, user) => (
        <div className="mg-tag-stack">
          <Tag>{t('column.invitedValue', { value: user.aff_count ?? 0 })}</Tag>
          <Tag>{t('column.rewardValue', { value: formatQuota(user.aff_history_quota ?? 0, quotaDisplay) })}</Tag>
          <Tag>
            {user.inviter_id
              ? t('column.inviterValue', { value: user.inviter_id })
              : t('column.noInviter')}
          </Tag>
        </div>
      ),
    },
    {
      title: t('column.actions'),
      key: 'actions',
      // Stays in view while the wide usage and invitation columns scroll.
      fixed: 'right',
      render: (_, user) =>
        isCancelled(user) ? (
          <Typography.Text type="secondary">{t('status.cancelledHint')}</Typography.Text>
        ) : (
          <UserRowActions
            user={user}
            busy={props.busyId === user.id}
            onManage={(action) => props.onManage(user, action)}
            onEdit={() => props.onEdit(user)}
          />
        ),
    },
  ];

  return (
    <Table<UserListItem>
      rowKey="id"
      columns={columns}
      dataSource={props.users}
      loading={props.loading}
      scroll={LIST_TABLE_SCROLL}
      locale={{ emptyText: <ListEmpty description={t('empty')} /> }}
      pagination={listPagination(props.page, props.pageSize, props.total, props.onPageChange)}
    />
  );
}
