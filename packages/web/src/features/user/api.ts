import { api } from '../../lib/api';

export interface ManagedUser {
  id: number;
  username: string;
  display_name: string;
  role: number;
  /** 1 active, 2 banned, 3 cannot be enabled (spec §3). */
  status: number;
  email?: string;
  group: string;
  quota: number;
  used_quota: number;
  request_count: number;
  aff_count?: number;
  aff_history_quota?: number;
  inviter_id?: number;
  github_id?: string;
  wechat_id?: string;
  telegram_id?: string;
  linux_do_id?: string;
  /** Exact casing from the reference (gotcha G3); set means the account was cancelled. */
  DeletedAt?: string | null;
  [key: string]: unknown;
}

export interface Paged<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
}

export interface UserQuery {
  keyword: string;
  group: string;
  page: number;
  pageSize: number;
}

export type ManageAction = 'promote' | 'demote' | 'enable' | 'disable' | 'delete';

export const userKeys = {
  all: ['users'] as const,
  list: (query: UserQuery) => ['users', 'list', query] as const,
  detail: (id: number) => ['users', 'detail', id] as const,
};

/** Paged style (console-api.md §5): 1-based `p`; the search endpoint is used once a filter is set. */
export async function fetchUsers(query: UserQuery): Promise<Paged<ManagedUser>> {
  const paging = { p: query.page, page_size: query.pageSize };
  const data =
    query.keyword || query.group
      ? await api.get<Paged<ManagedUser>>('/api/user/search', { keyword: query.keyword, group: query.group, ...paging })
      : await api.get<Paged<ManagedUser>>('/api/user/', paging);
  return {
    items: Array.isArray(data?.items) ? data.items : [],
    total: Number(data?.total) || 0,
    page: Number(data?.page) || query.page,
    page_size: Number(data?.page_size) || query.pageSize,
  };
}

export function fetchUser(id: number): Promise<ManagedUser> {
  return api.get<ManagedUser>(`/api/user/${id}`);
}

export interface NewUser {
  username: string;
  display_name: string;
  password: string;
}

export function createUser(user: NewUser): Promise<unknown> {
  return api.post('/api/user/', user);
}

export function updateUser(user: ManagedUser & { password: string }): Promise<unknown> {
  return api.put('/api/user/', user);
}

export function manageUser(id: number, action: ManageAction): Promise<{ status: number; role: number }> {
  return api.post<{ status: number; role: number }>('/api/user/manage', { id, action });
}

/** The row after a manage action: delete marks it cancelled; others take the returned status and role. */
export function applyManageResult(
  user: ManagedUser,
  action: ManageAction,
  result: { status?: number; role?: number } | null | undefined,
  now: Date = new Date(),
): ManagedUser {
  if (action === 'delete') return { ...user, DeletedAt: now.toISOString() };
  return {
    ...user,
    status: typeof result?.status === 'number' ? result.status : user.status,
    role: typeof result?.role === 'number' ? result.role : user.role,
  };
}

export function isCancelled(user: Pick<ManagedUser, 'DeletedAt'>): boolean {
  // Loose check on purpose: a server that omits the key must not make every row look deleted (G3).
  return user.DeletedAt != null;
}
