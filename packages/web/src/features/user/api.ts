import type { CreateUserBody, ManageAction, Paged, UpdateUserBody, User, UserListItem } from '@modelgate/shared/api';
import { call } from '../../lib/api';

/** A user as the admin screens see it (`DeletedAt` set means the account was cancelled, G3). */
export type { User, UserListItem };
export type { ManageAction, Paged };

export interface UserQuery {
  keyword: string;
  group: string;
  page: number;
  pageSize: number;
}

export const userKeys = {
  all: ['users'] as const,
  list: (query: UserQuery) => ['users', 'list', query] as const,
  detail: (id: number) => ['users', 'detail', id] as const,
};

/** Paged style (console-api.md §5): 1-based `p`; the search endpoint is used once a filter is set. */
export async function fetchUsers(query: UserQuery): Promise<Paged<UserListItem>> {
  const paging = { p: query.page, page_size: query.pageSize };
  const data =
    query.keyword || query.group
      ? await call('GET /api/user/search', { query: { keyword: query.keyword, group: query.group, ...paging } })
      : await call('GET /api/user/', { query: paging });
  return {
    items: Array.isArray(data?.items) ? data.items : [],
    total: Number(data?.total) || 0,
    page: Number(data?.page) || query.page,
    page_size: Number(data?.page_size) || query.pageSize,
  };
}

export function fetchUser(id: number): Promise<User> {
  return call('GET /api/user/:id', { params: { id } });
}


export function createUser(user: CreateUserBody): Promise<unknown> {
  return call('POST /api/user/', { body: user });
}

export function updateUser(user: UpdateUserBody): Promise<unknown> {
  return call('PUT /api/user/', { body: user });
}

export function manageUser(id: number, action: ManageAction): Promise<{ status: number; role: number }> {
  return call('POST /api/user/manage', { body: { id, action } });
}

/** The row after a manage action: delete marks it cancelled; others take the returned status and role. */
export function applyManageResult<T extends User>(
  user: T,
  action: ManageAction,
  result: { status?: number; role?: number } | null | undefined,
  now: Date = new Date(),
): T {
  if (action === 'delete') return { ...user, DeletedAt: now.toISOString() };
  return {
    ...user,
    status: typeof result?.status === 'number' ? result.status : user.status,
    role: typeof result?.role === 'number' ? result.role : user.role,
  };
}

export function isCancelled(user: Partial<Pick<User, 'DeletedAt'>>): boolean {
  // Loose check on purpose: a server that omits the key must not make every row look deleted (G3).
  return user.DeletedAt != null;
}
