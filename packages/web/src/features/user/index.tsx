import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Card } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { showSuccess } from '../../lib/feedback';
import { getPageSize, setPageSize } from '../../lib/storage';
import {
  applyManageResult,
  fetchUsers,
  manageUser,
  userKeys,
  type ManageAction,
  type User,
  type UserListItem,
  type Paged,
  type UserQuery,
} from './api';
import { AddUserModal } from './components/add-user-modal';
import { EditUserDrawer } from './components/edit-user-drawer';
import { UserFilters } from './components/user-filters';
import { UserTable } from './components/user-table';

/**
 * Spec screen "user management". The edit drawer follows the route, like the channel screen's:
 * /user/edit/:id edits that user (a link can open it), closing it returns to /user.
 */
export default function UserManagementPage() {
  const { t } = useTranslation('user');
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const params = useParams();
  const [query, setQuery] = useState<UserQuery>(() => ({ keyword: '', group: '', page: 1, pageSize: getPageSize() }));
  const [adding, setAdding] = useState(false);
  const parsed = params.id ? Number(params.id) : NaN;
  const editingId = Number.isInteger(parsed) && parsed > 0 ? parsed : null;

  const listKey = userKeys.list(query);
  const list = useQuery({ queryKey: listKey, queryFn: () => fetchUsers(query), placeholderData: keepPreviousData });

  const manage = useMutation({
    mutationFn: ({ user, action }: { user: User; action: ManageAction }) => manageUser(user.id, action),
    onSuccess: (result, { user, action }) => {
      showSuccess(t('action.done'));
      // Patch the row in place, like the reference: the list is not refetched, so a deleted user
      // stays visible as cancelled on this page.
      queryClient.setQueryData<Paged<UserListItem>>(listKey, (old) =>
        old && { ...old, items: old.items.map((row) => (row.id === user.id ? applyManageResult(row, action, result) : row)) },
      );
    },
  });

  const refresh = () => queryClient.invalidateQueries({ queryKey: userKeys.all });

  return (
    <Card title={t('title')} className="mg-page-card">
      <UserFilters
        onAdd={() => setAdding(true)}
        onSearch={(filters) => setQuery((old) => ({ ...old, ...filters, page: 1 }))}
      />
      <UserTable
        users={list.data?.items ?? []}
        loading={list.isFetching}
        page={list.data?.page ?? query.page}
        pageSize={query.pageSize}
        total={list.data?.total ?? 0}
        busyId={manage.isPending ? (manage.variables?.user.id ?? null) : null}
        onPageChange={(page, pageSize) => {
          if (pageSize !== query.pageSize) setPageSize(pageSize);
          setQuery((old) => ({ ...old, page: pageSize !== old.pageSize ? 1 : page, pageSize }));
        }}
        onManage={(user, action) => manage.mutate({ user, action })}
        onEdit={(user) => void navigate(`/user/edit/${user.id}`)}
      />
      <AddUserModal open={adding} onClose={() => setAdding(false)} onCreated={() => void refresh()} />
      <EditUserDrawer userId={editingId} onClose={() => void navigate('/user')} onSaved={() => void refresh()} />
    </Card>
  );
}
