import { expect, test, tr } from './fixtures';

test('language and theme choices survive a reload', async ({ page }) => {
  await page.goto('/');
  const menu = page.locator('.mg-top-menu');
  await expect(menu.getByText(tr('zh', 'nav.home'), { exact: true })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');

  await page.getByTestId('language-switch').click();
  await page.getByRole('menuitem', { name: 'English' }).click();
  await expect(menu.getByText(tr('en', 'nav.home'), { exact: true })).toBeVisible();
  await page.getByTestId('theme-switch').click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');

  await page.reload();
  await expect(menu.getByText(tr('en', 'nav.home'), { exact: true })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');

  await page.getByTestId('language-switch').click();
  await page.getByRole('menuitem', { name: '中文' }).click();
  await page.getByTestId('theme-switch').click();
  await page.reload();
  await expect(menu.getByText(tr('zh', 'nav.home'), { exact: true })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
});
