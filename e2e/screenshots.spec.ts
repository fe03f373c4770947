import type { Page } from '@playwright/test';
import OpenAI from 'openai';
import { consoleApi, expect, FAKE_EPAY, FAKE_EPAY_KEY, FAKE_EPAY_PID, FAKE_KEY, FAKE_UPSTREAM, login, loginAsRoot, register, test, tr, uniqueName, type Lang } from './fixtures';

/**
 * Visual review aid, not an assertion suite: `E2E_SHOTS=/tmp/shots npm run test:e2e -- screenshots`
 * saves every screen (zh/en, light/dark, wide/narrow) for a human to look at.
 */
const dir = process.env.E2E_SHOTS;
test.skip(!dir, 'set E2E_SHOTS=<dir> to capture screenshots');
test.describe.configure({ mode: 'serial' });

async function shot(page: Page, name: string) {
  await page.waitForLoadState('networkidle');
  // Let antd's enter animations settle so drawers and modals are fully visible.
  await page.waitForTimeout(500);
  await page.screenshot({ path: `${dir}/${name}.png`, fullPage: true });
}

async function prefs(page: Page, lang: Lang, theme: 'light' | 'dark') {
  await page.addInitScript(
    ([l, th]) => {
      localStorage.setItem('i18nextLng', l);
      localStorage.setItem('theme-mode', th);
    },
    [lang, theme] as const,
  );
}

const variants: { lang: Lang; theme: 'light' | 'dark'; width: number; tag: string }[] = [
  { lang: 'zh', theme: 'light', width: 1366, tag: 'zh-light' },
  { lang: 'en', theme: 'dark', width: 1366, tag: 'en-dark' },
  { lang: 'zh', theme: 'light', width: 390, tag: 'zh-narrow' },
  { lang: 'en', theme: 'light', width: 1920, tag: 'en-wide' },
  { lang: 'zh', theme: 'light', width: 1920, tag: 'zh-wide' },
];

for (const v of variants) {
  test(`public screens ${v.tag}`, async ({ page }) => {
    await page.setViewportSize({ width: v.width, height: 860 });
    await prefs(page, v.lang, v.theme);
    for (const [name, path] of [
      ['home', '/'],
      ['about', '/about'],
      ['login', '/login'],
      ['login-expired', '/login?expired=true'],
      ['register', '/register'],
      ['reset', '/reset'],
      ['reset-confirm', '/user/reset?email=someone%40example.com&token=abc'],
      ['not-found', '/missing-page'],
    ] as const) {
      await page.goto(path);
      await shot(page, `${v.tag}-${name}`);
    }
  });

  test(`user screens ${v.tag}`, async ({ page }) => {
    await page.setViewportSize({ width: v.width, height: 860 });
    await prefs(page, v.lang, v.theme);
    const username = uniqueName('v');
    await register(page, v.lang, username, 'password123');
    await login(page, v.lang, username, 'password123');
    await shot(page, `${v.tag}-token-empty`);
    await page.getByRole('button', { name: tr(v.lang, 'token:add'), exact: true }).click();
    await shot(page, `${v.tag}-token-create`);
    const drawer = page.getByRole('dialog', { name: tr(v.lang, 'token:drawer.createTitle') });
    await drawer.getByLabel(tr(v.lang, 'token:field.name')).fill('demo');
    await drawer.getByLabel(tr(v.lang, 'token:field.count')).fill('3');
    await drawer.getByRole('button', { name: tr(v.lang, 'common:action.submit'), exact: true }).click();
    await expect(page.locator('.ant-table-tbody tr.ant-table-row')).toHaveCount(3);
    await page.locator('.ant-table-tbody tr.ant-table-row').first()
      .getByRole('button', { name: tr(v.lang, 'token:action.disable'), exact: true }).click();
    await shot(page, `${v.tag}-token-list`);
    await page.locator('.ant-table-tbody tr.ant-table-row').first()
      .getByRole('button', { name: tr(v.lang, 'common:action.edit'), exact: true }).click();
    await page.getByRole('dialog', { name: tr(v.lang, 'token:drawer.editTitle') })
      .getByLabel(tr(v.lang, 'token:field.modelLimitsEnabled')).click();
    await shot(page, `${v.tag}-token-edit`);
    await page.goto('/setting');
    await shot(page, `${v.tag}-setting`);
    await page.goto('/user');
    await shot(page, `${v.tag}-forbidden`);
    if (v.width < 600) {
      await page.goto('/token');
      await page.getByTestId('nav-toggle').click();
      await shot(page, `${v.tag}-side-nav-open`);
    }
  });

  test(`admin screens ${v.tag}`, async ({ page }) => {
    await page.setViewportSize({ width: v.width, height: 860 });
    await prefs(page, v.lang, v.theme);
    await loginAsRoot(page, v.lang);
    await page.goto('/user');
    await expect(page.locator('.ant-table-tbody tr.ant-table-row').first()).toBeVisible();
    await shot(page, `${v.tag}-users`);
    await page.getByRole('button', { name: tr(v.lang, 'user:add.button'), exact: true }).click();
    await shot(page, `${v.tag}-user-add`);
    await page.keyboard.press('Escape');
    await page.locator('.ant-table-tbody tr.ant-table-row').filter({ hasText: 'Root User' })
      .getByRole('button', { name: tr(v.lang, 'common:action.edit'), exact: true }).click();
    await expect(page.getByRole('dialog', { name: tr(v.lang, 'user:edit.title') }).getByLabel(tr(v.lang, 'user:field.username'))).not.toHaveValue('');
    await shot(page, `${v.tag}-user-edit`);
  });

  test(`money screens ${v.tag}`, async ({ page, baseURL }) => {
    await page.setViewportSize({ width: v.width, height: 860 });
    await prefs(page, v.lang, v.theme);
    await loginAsRoot(page, v.lang);
    // Online top-up off first: the wallet's empty state.
    await consoleApi(page, 'PUT', '/api/option/', { key: 'ServerAddress', value: baseURL! });
    await consoleApi(page, 'PUT', '/api/option/', { key: 'PayAddress', value: '' });
    await page.goto('/redemption');
    await shot(page, `${v.tag}-redemption`);
    await page.getByRole('button', { name: tr(v.lang, 'redemption:add'), exact: true }).click();
    await shot(page, `${v.tag}-redemption-create`);
    const drawer = page.getByRole('dialog', { name: tr(v.lang, 'redemption:drawer.createTitle') });
    await drawer.getByLabel(tr(v.lang, 'redemption:field.count')).fill('3');
    await drawer.getByRole('button', { name: tr(v.lang, 'common:action.submit'), exact: true }).click();
    const created = page.getByRole('dialog', { name: tr(v.lang, 'redemption:created.title', { count: 3 }) });
    const [key] = (await created.getByLabel(tr(v.lang, 'redemption:created.keys')).inputValue()).split('\n');
    await shot(page, `${v.tag}-redemption-created`);
    await page.keyboard.press('Escape');
    await page.goto('/topup');
    await shot(page, `${v.tag}-wallet-offline`);
    for (const [k, value] of [['ServerAddress', baseURL!], ['PayAddress', FAKE_EPAY], ['EpayId', FAKE_EPAY_PID], ['EpayKey', FAKE_EPAY_KEY]]) {
      await consoleApi(page, 'PUT', '/api/option/', { key: k, value });
    }
    await page.context().clearCookies();
    await page.evaluate(() => localStorage.removeItem('user'));
    const username = uniqueName('m');
    await register(page, v.lang, username, 'password123');
    await login(page, v.lang, username, 'password123');
    await page.goto('/topup');
    await page.getByLabel(tr(v.lang, 'topup:redeem.placeholder')).fill(key!);
    await page.getByRole('button', { name: tr(v.lang, 'topup:redeem.submit'), exact: true }).click();
    await expect(page.getByTestId('wallet-balance')).toContainText('$0.20');
    await page.getByRole('button', { name: '$10', exact: true }).click();
    await expect(page.getByTestId('topup-payable')).toContainText('¥73.00');
    await shot(page, `${v.tag}-wallet`);
    await page.getByRole('button', { name: tr(v.lang, 'topup:online.alipay') }).click();
    await page.getByRole('button', { name: /Pay/ }).click();
    await expect(page.getByTestId('payment-result')).toBeVisible();
    await shot(page, `${v.tag}-wallet-paid`);
    await page.goto('/setting');
    await shot(page, `${v.tag}-setting-invite`);
    await page.context().clearCookies();
    await page.evaluate(() => localStorage.removeItem('user'));
    await loginAsRoot(page, v.lang);
    await page.goto('/topup?tab=orders');
    await expect(page.locator('.ant-table-tbody tr.ant-table-row').first()).toBeVisible();
    await shot(page, `${v.tag}-topup-orders`);
  });

  test(`relay screens ${v.tag}`, async ({ page, baseURL }) => {
    await page.setViewportSize({ width: v.width, height: 860 });
    await prefs(page, v.lang, v.theme);
    await loginAsRoot(page, v.lang);
    const run = uniqueName('s');
    for (const [name, type, models, tag] of [
      [`${run}-a`, 1, 'gpt-4o-mini,gpt-4o', run],
      [`${run}-b`, 43, 'deepseek-chat', run],
      [`${run}-c`, 8, 'gpt-4o-mini', ''],
    ] as const) {
      const base = type === 8 ? `${FAKE_UPSTREAM}/v1/chat/completions` : FAKE_UPSTREAM;
      await consoleApi(page, 'POST', '/api/channel/', { type, name, key: FAKE_KEY, base_url: base, models, groups: ['default'], tag });
    }
    const [token] = await (async () => {
      await consoleApi(page, 'POST', '/api/token/', { name: run, remain_quota: 0, expired_time: -1, unlimited_quota: true, model_limits_enabled: false, model_limits: '', allow_ips: '', group: '' });
      return consoleApi<{ key: string }[]>(page, 'GET', `/api/token/search?keyword=${run}&token=`);
    })();
    const client = new OpenAI({ baseURL: `${baseURL}/v1`, apiKey: `sk-${token.key}`, maxRetries: 0 });
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'screenshot call' }] });
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'streamed' }] });
    for await (const chunk of stream) void chunk;

    await page.goto('/channel');
    await expect(page.locator('.ant-table-tbody tr.ant-table-row').first()).toBeVisible();
    await page.locator('.ant-table-tbody tr.ant-table-row').filter({ hasText: `${run}-a` })
      .getByRole('button', { name: tr(v.lang, 'channel:action.test'), exact: true }).click();
    await page.waitForTimeout(800);
    await shot(page, `${v.tag}-channels`);
    await page.getByRole('switch', { name: tr(v.lang, 'channel:toolbar.tagMode') }).click();
    await shot(page, `${v.tag}-channels-tags`);
    await page.getByRole('button', { name: tr(v.lang, 'channel:tag.edit'), exact: true }).first().click();
    await shot(page, `${v.tag}-channel-tag-edit`);
    await page.keyboard.press('Escape');
    await page.goto('/channel/add');
    await shot(page, `${v.tag}-channel-add`);
    await page.goto('/channel');
    await page.getByLabel(tr(v.lang, 'channel:search.keyword')).fill(`${run}-a`);
    await page.getByRole('button', { name: tr(v.lang, 'channel:search.submit'), exact: true }).click();
    await page.locator('.ant-table-tbody tr.ant-table-row').first()
      .getByRole('button', { name: tr(v.lang, 'common:action.edit'), exact: true }).click();
    await expect(page.getByRole('dialog').getByLabel(tr(v.lang, 'channel:field.name'), { exact: true })).toHaveValue(`${run}-a`);
    await shot(page, `${v.tag}-channel-edit`);

    await page.goto('/log');
    await expect(page.locator('.ant-table-tbody tr.ant-table-row').first()).toBeVisible();
    await page.locator('.ant-table-row-expand-icon').first().click();
    await shot(page, `${v.tag}-log`);
    await page.getByRole('button', { name: tr(v.lang, 'log:clear.button') }).click();
    await shot(page, `${v.tag}-log-clear`);
    await page.keyboard.press('Escape');
    await page.goto('/log');
    await page.locator('.ant-table-tbody tr.ant-table-row').first().getByRole('button', { name: 'root', exact: true }).click();
    await shot(page, `${v.tag}-log-user`);
  });
}

