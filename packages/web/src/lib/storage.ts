import type { ChatEntry, StoredStatus, StoredUser } from '@modelgate/shared/api';

/** Reads and writes the localStorage layout declared in @modelgate/shared/api (storage.ts). */
export type { ChatEntry, StoredStatus, StoredUser };

function readJson<T>(key: string): T | null {
  const raw = localStorage.getItem(key);
  if (!raw) return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    // A value written by an older console can be malformed ("undefined"); treat it as absent.
    return null;
  }
}

export function getStoredUser(): StoredUser | null {
  const user = readJson<StoredUser>('user');
  return user && typeof user.id === 'number' ? user : null;
}

export function setStoredUser(user: StoredUser | null): void {
  if (user) localStorage.setItem('user', JSON.stringify(user));
  else localStorage.removeItem('user');
}

export function getStoredStatus(): StoredStatus {
  return readJson<StoredStatus>('status') ?? {};
}

/** Fields the reference also copies out of `status` into their own keys; other code may read them. */
const COPIED_STATUS_FIELDS = [
  'system_name',
  'logo',
  'footer_html',
  'quota_per_unit',
  'display_in_currency',
  'enable_drawing',
  'enable_task',
  'enable_data_export',
  'data_export_default_time',
  'default_collapse_sidebar',
  'mj_notify_enabled',
  'chat_link',
  'chat_link2',
] as const;

export function saveStatus(status: StoredStatus): void {
  localStorage.setItem('status', JSON.stringify(status));
  for (const field of COPIED_STATUS_FIELDS) {
    const value = status[field];
    if (value === undefined || value === null) localStorage.removeItem(field);
    else localStorage.setItem(field, String(value));
  }
  // The reference sidebar JSON.parses `chats`; never store the string "undefined" (gotcha G2).
  localStorage.setItem('chats', JSON.stringify(Array.isArray(status.chats) ? status.chats : []));
}

export const PAGE_SIZE_OPTIONS = [10, 20, 50, 100] as const;

export function getPageSize(): number {
  const value = Number(localStorage.getItem('page-size'));
  return (PAGE_SIZE_OPTIONS as readonly number[]).includes(value) ? value : 10;
}

export function setPageSize(size: number): void {
  localStorage.setItem('page-size', String(size));
}
