import { describe, expect, it } from 'vitest';
import type { StoredStatus } from '../lib/storage';
import { buildSideNav, SIDE_NAV } from './nav-items';

const everything = () => true;
const keys = (entries: { key: string }[]) => entries.map((entry) => entry.key);
const user = { role: 1 };
const admin = { role: 10 };

describe('buildSideNav', () => {
  it('hides admin-only entries from ordinary users', () => {
    const nav = keys(buildSideNav(user, {}, everything));
    expect(nav).not.toContain('channel');
    expect(nav).not.toContain('redemption');
    expect(nav).not.toContain('user');
    expect(nav).toContain('token');
    expect(nav).toContain('setting');
  });

  it('shows admin-only entries to admins and the root user', () => {
    for (const who of [admin, { role: 100 }]) {
      expect(keys(buildSideNav(who, {}, everything))).toEqual(
        expect.arrayContaining(['channel', 'redemption', 'user']),
      );
    }
  });

  it('shows the audit log to the super admin only', () => {
    expect(keys(buildSideNav({ role: 100 }, {}, everything))).toContain('audit');
    expect(keys(buildSideNav(admin, {}, everything))).not.toContain('audit');
    expect(keys(buildSideNav(user, {}, everything))).not.toContain('audit');
  });

  it('shows dashboard, drawing and tasks only when their flags are on', () => {
    expect(keys(buildSideNav(user, {}, everything))).not.toEqual(
      expect.arrayContaining(['detail']),
    );
    const off = keys(buildSideNav(user, { enable_data_export: false, enable_drawing: false, enable_task: false }, everything));
    expect(off).not.toContain('detail');
    expect(off).not.toContain('midjourney');
    expect(off).not.toContain('task');
    const on = keys(buildSideNav(user, { enable_data_export: true, enable_drawing: 'true', enable_task: true } as unknown as StoredStatus, everything));
    expect(on).toEqual(expect.arrayContaining(['detail', 'midjourney', 'task']));
  });

  it('builds chat sub-items from status.chats, unless chat_link is set', () => {
    const status: StoredStatus = { chats: [{ NextChat: 'https://a/{key}' }, { LobeChat: 'https://b/{key}' }] };
    const chat = buildSideNav(user, status, everything).find((entry) => entry.key === 'chat');
    expect(chat?.children).toEqual([
      { key: 'chat-0', path: '/chat/0', label: 'NextChat' },
      { key: 'chat-1', path: '/chat/1', label: 'LobeChat' },
    ]);
    const linked = buildSideNav(user, { ...status, chat_link: 'https://c' }, everything).find((e) => e.key === 'chat');
    expect(linked).toBeDefined();
    expect(linked?.children).toBeUndefined();
    expect(keys(buildSideNav(user, { chats: [] }, everything))).not.toContain('chat');
  });

  it('lists only screens that exist, in the spec order', () => {
    const built = new Set(['/token', '/user', '/setting']);
    expect(keys(buildSideNav(admin, { enable_task: true }, (path) => built.has(path)))).toEqual([
      'token',
      'user',
      'setting',
    ]);
    expect(keys(buildSideNav(user, {}, (path) => built.has(path)))).toEqual(['token', 'setting']);
  });

  it('keeps the spec order (the audit log, which the spec predates, after the usage log)', () => {
    expect(SIDE_NAV.map((item) => item.key)).toEqual([
      'playground', 'channel', 'chat', 'token', 'detail', 'redemption', 'plan', 'topup', 'user', 'log', 'audit', 'midjourney', 'task', 'setting',
    ]);
  });
});
