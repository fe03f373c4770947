import type { Page } from '@playwright/test';
import { consoleApi, expect, FAKE_EPAY, FAKE_EPAY_KEY, FAKE_EPAY_PID, login, loginAsRoot, register, test, tr, uniqueName, useLanguage, type Lang } from './fixtures';

/** Online top-up through the fake gateway: the server must be reachable at its own address for the notification. */
async function enableOnlineTopUp(page: Page, baseURL: string): Promise<void> {
  for (const [key, value] of [['ServerAddress', baseURL], ['PayAddress', FAKE_EPAY], ['EpayId', FAKE_EPAY_PID], ['EpayKey', FAKE_EPAY_KEY], ['MinTopUp', '1']]) {
    await consoleApi(page, 'PUT', '/api/option/', { key, value });
  }
}

async function logout(page: Page): Promise<void> {
  await page.context().clearCookies();
  await page.evaluate(() => localStorage.removeItem('user'));
}

for (const lang of ['zh', 'en'] as Lang[]) {
  test(`an admin creates a code; a user redeems it and pays online from the wallet (${lang})`, async ({ page, baseURL }) => {
    await useLanguage(page, lang);
    await loginAsRoot(page, lang);
    await enableOnlineTopUp(page, baseURL!);

    // The admin creates one $2 code on the redemption screen and reads its key from the dialog.
    await page.goto('/redemption');
    await page.getByRole('button', { name: tr(lang, 'redemption:add'), exact: true }).click();
    const drawer = page.getByRole('dialog', { name: tr(lang, 'redemption:drawer.createTitle') });
    const codeName = uniqueName(`rc-${lang}`);
    await drawer.getByLabel(tr(lang, 'redemption:field.name')).fill(codeName);
    await drawer.getByLabel(tr(lang, 'redemption:field.quota')).fill('1000000');
    await drawer.getByRole('button', { name: tr(lang, 'common:action.submit'), exact: true }).click();
    const created = page.getByRole('dialog', { name: tr(lang, 'redemption:created.title', { count: 1 }) });
    const key = (await created.getByLabel(tr(lang, 'redemption:created.keys')).inputValue()).trim();
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    await page.keyboard.press('Escape');
    await expect(created).toBeHidden();
    await expect(page.locator('.ant-table-tbody tr.ant-table-row').filter({ hasText: codeName })).toContainText(tr(lang, 'redemption:status.unused'));
    await logout(page);

    // A new user redeems it.
    const username = uniqueName('w');
    await register(page, lang, username, 'password123');
    await login(page, lang, username, 'password123');
    await page.goto('/topup');
    const balance = page.getByTestId('wallet-balance');
    await expect(balance).toContainText('$0.00');
    await page.getByLabel(tr(lang, 'topup:redeem.placeholder')).fill(key);
    await page.getByRole('button', { name: tr(lang, 'topup:redeem.submit'), exact: true }).click();
    await expect(page.getByText(tr(lang, 'topup:redeem.done', { amount: '$2.00' }))).toBeVisible();
    await expect(balance).toContainText('$2.00');
    // The same code again: refused with the server's message, in this language.
    await page.getByLabel(tr(lang, 'topup:redeem.placeholder')).fill(key);
    await page.getByRole('button', { name: tr(lang, 'topup:redeem.submit'), exact: true }).click();
    await expect(page.getByText(lang === 'zh' ? '该兑换码已被使用' : 'This redemption code has already been used')).toBeVisible();

    // Online: $10 at 7.3 yuan per dollar, paid on the gateway's cashier page.
    await page.getByRole('button', { name: '$10', exact: true }).click();
    await expect(page.getByTestId('topup-payable')).toContainText('¥73.00');
    await page.getByRole('button', { name: tr(lang, 'topup:online.alipay') }).click();
    await expect(page).toHaveURL(new RegExp(`^${FAKE_EPAY}/submit\\.php`));
    await expect(page.locator('[data-field="money"]')).toHaveText('¥73.00');
    await page.getByRole('button', { name: /Pay/ }).click();

    // Back on the wallet: what the server recorded, and the new balance.
    await expect(page).toHaveURL(/\/topup\?/);
    await expect(page.getByTestId('payment-result')).toContainText(tr(lang, 'topup:result.success', { amount: '$10.00' }));
    await expect(balance).toContainText('$12.00');
  });
}
