import type { Page } from '@playwright/test';
import { consoleApi, expect, FAKE_UPSTREAM, loginAsRoot, test, tr, uniqueName, useLanguage, type Lang } from './fixtures';

const rows = (page: Page) => page.locator('.ant-table-tbody tr.ant-table-row');

async function noHorizontalOverflow(page: Page) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
}

/** Searches the audit screen by target id; answers the rows shown. */
async function byTarget(page: Page, lang: Lang, target: string) {
  await page.getByLabel(tr(lang, 'audit:filter.target'), { exact: true }).fill(target);
  const answered = page.waitForResponse((r) => r.url().includes('/api/audit/') && new URL(r.url()).searchParams.get('target') === target);
  await page.getByRole('button', { name: tr(lang, 'audit:filter.submit'), exact: true }).click();
  await answered;
  await expect(page.locator('.ant-spin-spinning')).toHaveCount(0);
  return rows(page);
}

for (const lang of ['zh', 'en'] as Lang[]) {
  test(`root's changes made in the console appear in the audit log, secrets hidden (${lang})`, async ({ page }) => {
    test.setTimeout(180_000);
    const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);
    await useLanguage(page, lang);
    await loginAsRoot(page, lang);
    const run = uniqueName(`a${lang}`);
    const channelKey = `sk-${run}-upstream-secret`;
    const metricsToken = `mt-${run}-secret`;
    const days = lang === 'zh' ? 365 : 366;

    // 1. Options, through the settings screen: a number, and a secret.
    await page.goto('/setting?tab=operation');
    const logs = page.locator('[data-section="logs"]');
    await logs.getByLabel(t('setting:option.AuditLogRetentionDays.label'), { exact: true }).fill(String(days));
    await logs.getByRole('button', { name: t('setting:section.save', { name: t('setting:section.logs') }), exact: true }).click();
    await expect(page.getByText(t('setting:section.saved')).last()).toBeVisible();
    const monitoring = page.locator('[data-section="monitoring"]');
    await monitoring.getByLabel(t('setting:option.MetricsToken.label'), { exact: true }).fill(metricsToken);
    await monitoring.getByRole('button', { name: t('setting:section.save', { name: t('setting:section.monitoring') }), exact: true }).click();
    await expect(page.getByText(t('setting:section.saved')).last()).toBeVisible();

    // 2. A channel, through the channel drawer.
    await page.goto('/channel');
    await page.getByRole('button', { name: t('channel:toolbar.add'), exact: true }).click();
    const drawer = page.getByRole('dialog', { name: t('channel:drawer.createTitle') });
    await drawer.getByLabel(t('channel:field.name'), { exact: true }).fill(`${run}-ch`);
    await drawer.getByLabel(t('channel:field.baseUrl.proxy'), { exact: true }).fill(FAKE_UPSTREAM);
    await drawer.getByLabel(t('channel:field.key'), { exact: true }).fill(channelKey);
    await drawer.getByLabel(t('channel:field.customModels'), { exact: true }).fill(`gpt-${run}`);
    await drawer.getByRole('button', { name: t('channel:drawer.addCustom'), exact: true }).click();
    await drawer.getByRole('button', { name: t('common:action.submit'), exact: true }).click();
    // Its models have no price: the save warns first (issue 35), and is confirmed.
    await page.getByRole('button', { name: t('channel:unpriced.saveAnyway'), exact: true }).click();
    await expect(page.getByText(t('channel:drawer.created'))).toBeVisible();

    // 3. A user's quota, through the user drawer (+$1).
    const username = uniqueName('q');
    await consoleApi(page, 'POST', '/api/user/', { username, password: 'password123', display_name: username });
    const userId = (await consoleApi<{ items: Array<{ id: number }> }>(page, 'GET', `/api/user/search?keyword=${username}&group=`)).items[0]!.id;
    await page.goto('/user');
    await page.getByLabel(t('user:search.keyword')).fill(username);
    await page.getByRole('button', { name: t('user:search.submit'), exact: true }).click();
    await expect(rows(page)).toHaveCount(1);
    await rows(page).first().getByRole('button', { name: t('common:action.edit'), exact: true }).click();
    const userDrawer = page.getByRole('dialog', { name: t('user:edit.title') });
    await userDrawer.getByLabel(t('user:field.addQuota')).fill('500000');
    await userDrawer.getByRole('button', { name: t('common:action.save'), exact: true }).click();
    await expect(page.getByText(t('user:edit.success'))).toBeVisible();

    // 4. The audit log, from the side nav.
    await page.getByTestId('side-nav').getByRole('link', { name: t('nav.audit'), exact: true }).click();
    await expect(page).toHaveURL(/\/audit$/);
    await expect(page.locator('.ant-card-head-title')).toHaveText(t('audit:title'));
    await expect(rows(page).first()).toBeVisible();

    for (const width of [1366, 1920]) {
      await page.setViewportSize({ width, height: 900 });
      await noHorizontalOverflow(page);
      await page.screenshot({ path: `/tmp/audit-${lang}-${width}.png`, fullPage: true });
    }
    await page.setViewportSize({ width: 1366, height: 900 });

    const channelRows = await byTarget(page, lang, `${run}-ch`);
    await expect(channelRows).toHaveCount(1);
    const channelRow = channelRows.first();
    await expect(channelRow).toContainText(t('audit:action.channel.create'));
    await expect(channelRow).toContainText('root');
    await expect(channelRow).toContainText(t('audit:result.success'));
    await channelRow.getByRole('button').last().click();
    const detail = page.getByTestId('audit-detail');
    await expect(detail).toContainText(t('audit:detail.request'));
    await expect(detail.getByText(t('audit:detail.masked'), { exact: true })).toBeVisible();
    await expect(detail).toContainText(`gpt-${run}`);
    // Let the popover finish its opening animation before the picture.
    await page.waitForTimeout(500);
    await page.screenshot({ path: `/tmp/audit-${lang}-1366-detail.png` });
    await page.keyboard.press('Escape');

    const userRows = await byTarget(page, lang, String(userId));
    const quotaRow = userRows.filter({ hasText: t('audit:action.user.update') }).first();
    await expect(quotaRow).toContainText(t('audit:field.quota'));
    await expect(quotaRow).toContainText(/\$0\.00\s*→\s*\$1\.00/);

    const secretRows = await byTarget(page, lang, 'MetricsToken');
    await expect(secretRows.first()).toContainText(t('setting:option.MetricsToken.label'));
    await expect(secretRows.first().getByText(t('audit:detail.masked'), { exact: true }).first()).toBeVisible();

    const dayRows = await byTarget(page, lang, 'AuditLogRetentionDays');
    await expect(dayRows.first()).toContainText(new RegExp(`180\\s*→\\s*${days}`));

    // Nothing on the screen is a raw key, a secret or an untranslated action name.
    const text = (await page.locator('main').textContent()) ?? '';
    for (const raw of [channelKey, metricsToken, '******', 'option.update', 'channel.create', 'user.update']) expect(text).not.toContain(raw);
    await page.getByLabel(t('audit:filter.target'), { exact: true }).fill('');
    await page.getByRole('button', { name: t('audit:filter.submit'), exact: true }).click();
    await expect(rows(page).first()).toBeVisible();
    const all = (await page.locator('main').textContent()) ?? '';
    for (const raw of [channelKey, metricsToken, '******']) expect(all).not.toContain(raw);
    if (lang === 'zh') expect(all).not.toMatch(/\b(Change a setting|Create channels|Edit a user|Success|Failed)\b/);

    await consoleApi(page, 'PUT', '/api/option/', { key: 'AuditLogRetentionDays', value: '180' });
    await consoleApi(page, 'PUT', '/api/option/', { key: 'MetricsToken', value: '' });
  });
}
