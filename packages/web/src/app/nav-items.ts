import { isAdmin, isRoot } from '../lib/roles';
import type { StoredStatus, StoredUser } from '../lib/storage';

/** Status flags that switch side-nav entries on (console-api.md §6, "Sidebar visibility"). */
type StatusFlag = 'enable_data_export' | 'enable_drawing' | 'enable_task';

export type NavIcon =
  | 'playground'
  | 'channel'
  | 'chat'
  | 'token'
  | 'dashboard'
  | 'redemption'
  | 'plan'
  | 'wallet'
  | 'user'
  | 'log'
  | 'audit'
  | 'drawing'
  | 'task'
  | 'setting';

interface SideNavDefinition {
  key: string;
  path: string;
  /** i18n key in the `common` namespace. */
  labelKey: string;
  icon: NavIcon;
  adminOnly?: boolean;
  /** Super admin only (the audit log). */
  rootOnly?: boolean;
  flag?: StatusFlag;
  /** Sub-items come from the status `chats` list. */
  chats?: boolean;
}

/** The spec §2 side nav, in its order. Entries appear once their screen exists (see `available`). */
export const SIDE_NAV: SideNavDefinition[] = [
  { key: 'playground', path: '/playground', labelKey: 'nav.playground', icon: 'playground' },
  { key: 'channel', path: '/channel', labelKey: 'nav.channel', icon: 'channel', adminOnly: true },
  { key: 'chat', path: '/chat', labelKey: 'nav.chat', icon: 'chat', chats: true },
  { key: 'token', path: '/token', labelKey: 'nav.token', icon: 'token' },
  { key: 'detail', path: '/detail', labelKey: 'nav.dashboard', icon: 'dashboard', flag: 'enable_data_export' },
  { key: 'redemption', path: '/redemption', labelKey: 'nav.redemption', icon: 'redemption', adminOnly: true },
  // Plans and periodic limits (issue 32): not in the spec's side nav, beside the other admin money screen.
  { key: 'plan', path: '/plan', labelKey: 'nav.plan', icon: 'plan', adminOnly: true },
  { key: 'topup', path: '/topup', labelKey: 'nav.wallet', icon: 'wallet' },
  { key: 'user', path: '/user', labelKey: 'nav.user', icon: 'user', adminOnly: true },
  { key: 'log', path: '/log', labelKey: 'nav.log', icon: 'log' },
  { key: 'audit', path: '/audit', labelKey: 'nav.audit', icon: 'audit', rootOnly: true },
  { key: 'midjourney', path: '/midjourney', labelKey: 'nav.drawing', icon: 'drawing', flag: 'enable_drawing' },
  { key: 'task', path: '/task', labelKey: 'nav.task', icon: 'task', flag: 'enable_task' },
  { key: 'setting', path: '/setting', labelKey: 'nav.setting', icon: 'setting' },
];

export interface SideNavChild {
  key: string;
  path: string;
  /** Literal label (a chat's configured name), not an i18n key. */
  label: string;
}

export interface SideNavEntry {
  key: string;
  path: string;
  labelKey: string;
  icon: NavIcon;
  children?: SideNavChild[];
}

/** Flags arrive as booleans from the server but as "true" strings from the reference's localStorage. */
function flagOn(value: unknown): boolean {
  return value === true || value === 'true';
}

function chatChildren(status: StoredStatus): SideNavChild[] | undefined {
  // With a single chat_link configured the reference shows one plain "chat" entry.
  if (status.chat_link) return undefined;
  const chats = Array.isArray(status.chats) ? status.chats : [];
  return chats.flatMap((entry, index) => {
    const name = entry && typeof entry === 'object' ? Object.keys(entry)[0] : undefined;
    return name ? [{ key: `chat-${index}`, path: `/chat/${index}`, label: name }] : [];
  });
}

export function buildSideNav(
  user: Pick<StoredUser, 'role'> | null,
  status: StoredStatus,
  available: (path: string) => boolean,
): SideNavEntry[] {
  const entries: SideNavEntry[] = [];
  for (const item of SIDE_NAV) {
    if (!available(item.path)) continue;
    if (item.adminOnly && !isAdmin(user)) continue;
    if (item.rootOnly && !isRoot(user)) continue;
    if (item.flag && !flagOn(status[item.flag])) continue;
    const entry: SideNavEntry = { key: item.key, path: item.path, labelKey: item.labelKey, icon: item.icon };
    if (item.chats) {
      const children = chatChildren(status);
      if (children && children.length === 0) continue;
      if (children) entry.children = children;
    }
    entries.push(entry);
  }
  return entries;
}
