import type { Page } from '@playwright/test';
import { expect, login, loginAsRoot, register, test, tr, uniqueName, type Lang } from './fixtures';

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
}
