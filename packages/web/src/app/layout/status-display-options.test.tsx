import { fireEvent, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { LogEntry } from '../../features/log/api';
import i18n from '../../i18n';
import { aSelfUser } from '../../test/fixtures';
import { DEFAULT_STATUS, mockApi, ok } from '../../test/mock-api';
import { PLAIN_USER, renderApp } from '../../test/render';

/** A desktop window 1366 px wide: every `(min-width: N px)` query up to 1366 matches. */
function desktopWindow(width = 1366) {
  vi.stubGlobal('matchMedia', (query: string) => {
    const min = /min-width:\s*(\d+)px/.exec(query);
    const max = /max-width:\s*(\d+(?:\.\d+)?)px/.exec(query);
    const matches = (!min || Number(min[1]) <= width) && (!max || Number(max[1]) >= width);
    return { matches, media: query, onchange: null, addListener: () => {}, removeListener: () => {}, addEventListener: () => {}, removeEventListener: () => {}, dispatchEvent: () => false };
  });
}

const sider = () => screen.getByTestId('side-nav');
const collapsed = () => sider().classList.contains('ant-layout-sider-collapsed');

function signedIn(status: Partial<typeof DEFAULT_STATUS>, extra: Parameters<typeof mockApi>[0] = {}) {
  return mockApi({
    'GET /api/status': () => ok({ ...DEFAULT_STATUS, ...status }),
    'GET /api/user/self': () => ok(aSelfUser(PLAIN_USER.id, PLAIN_USER)),
    'GET /api/user/aff': () => ok('ABCD'),
    'GET /api/user/models': () => ok([]),
    ...extra,
  });
}

describe('DefaultCollapseSidebar (status.default_collapse_sidebar) on a desktop', () => {
  beforeEach(() => desktopWindow());

  it('starts with the side nav collapsed to icons when on, and the user can still open it', async () => {
    signedIn({ default_collapse_sidebar: true });
    renderApp('/setting', PLAIN_USER);
    await screen.findByTestId('side-nav');
    await waitFor(() => expect(collapsed()).toBe(true));
    // Icons stay visible: the collapsed desktop nav is 64 px wide, not hidden.
    expect(sider().style.width).toBe('64px');
    fireEvent.click(sider().querySelector<HTMLElement>('.ant-layout-sider-trigger')!);
    await waitFor(() => expect(collapsed()).toBe(false));
  });

  it('starts open when off', async () => {
    signedIn({ default_collapse_sidebar: false });
    renderApp('/setting', PLAIN_USER);
    await screen.findByTestId('side-nav');
    await waitFor(() => expect(sider().style.width).toBe('200px'));
    expect(collapsed()).toBe(false);
  });
});

const entry: LogEntry = {
  id: 1, created_at: 1700000000, type: 2, content: '', username: 'alice', user_id: 2, token_name: 'tk',
  model_name: 'gpt-4o-mini', quota: 240, prompt_tokens: 600, completion_tokens: 50, use_time: 2, is_stream: false, channel: 3, token_id: 4,
  group: 'default', other: '',
};
const logApi = {
  'GET /api/log/self': () => ok({ items: [entry], total: 1, page: 1, page_size: 10 }),
  'GET /api/log/self/stat': () => ok({ quota: 240, rpm: 1, tpm: 650 }),
} as const;

describe('DisplayTokenStatEnabled (status.display_token_stat) in the usage log', () => {
  it('shows the page’s token totals beside quota, RPM and TPM when on', async () => {
    signedIn({ display_token_stat: true }, logApi);
    renderApp('/log', PLAIN_USER);
    const stats = await screen.findByTestId('log-stats');
    await waitFor(() => expect(stats.textContent).toContain('本页 提示 600 / 补全 50 tokens'));
  });

  it('hides the token totals when off, keeping the other figures (English)', async () => {
    await i18n.changeLanguage('en');
    signedIn({ display_token_stat: false }, logApi);
    renderApp('/log', PLAIN_USER);
    const stats = await screen.findByTestId('log-stats');
    await waitFor(() => expect(stats.textContent).toContain('TPM'));
    expect(stats.textContent).not.toMatch(/tokens/i);
    expect(stats.querySelectorAll('.mg-stat-tag')).toHaveLength(3);
  });
});
