import { consoleApi, expect, FAKE_EPAY, FAKE_EPAY_KEY, FAKE_EPAY_PID, login, loginAsRoot, signOut, snapAtWidths, test, tr, uniqueName, useLanguage, type Lang } from './fixtures';

/**
 * A plan paid online (issue 32): a user with an empty wallet pays a plan's price on the fake Epay
 * gateway from the wallet's plan card; back on the wallet the plan is running and the balance is
 * what it was. `E2E_SHOTS=<dir>` also saves the plan card with its two buttons at 1366 and 1920 px.
 */

for (const lang of ['zh', 'en'] as Lang[]) {
  test(`a user pays a plan online through Epay and sees it running (${lang})`, async ({ page, baseURL }) => {
    const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);
    test.setTimeout(180_000);
    const planName = `Online ${lang} ${Date.now().toString(36).slice(-5)}`;
    await useLanguage(page, lang);
    await loginAsRoot(page, lang);
    // Set-up through the API: Epay on (Price 7.3 yuan per dollar), a $2 plan, a user with nothing in the wallet.
    for (const [key, value] of [['ServerAddress', baseURL!], ['PayAddress', FAKE_EPAY], ['EpayId', FAKE_EPAY_PID], ['EpayKey', FAKE_EPAY_KEY]]) {
      await consoleApi(page, 'PUT', '/api/option/', { key, value });
    }
    await consoleApi(page, 'POST', '/api/plan/', { name: planName, price: 1_000_000, duration_days: 30, allowances: { day: { requests: 100 } } });
    const username = uniqueName('pp');
    await consoleApi(page, 'POST', '/api/user/', { username, password: 'password123' });
    const found = await consoleApi<{ items: Array<{ id: number }> }>(page, 'GET', `/api/user/search?keyword=${username}`);
    await consoleApi(page, 'PUT', '/api/user/', { id: found.items[0]!.id, quota: 0 });
    await signOut(page, lang);

    await login(page, lang, username, 'password123');
    await page.goto('/topup');
    const balance = page.getByTestId('wallet-balance');
    await expect(balance).toContainText('$0.00');
    const offer = page.getByTestId('plan-offer').filter({ hasText: planName });
    await expect(offer.getByRole('button', { name: t('plan:wallet.buy') })).toBeVisible();
    const payOnline = offer.getByRole('button', { name: t('plan:wallet.payOnline') });
    await expect(payOnline).toBeVisible();
    await offer.scrollIntoViewIfNeeded();
    await snapAtWidths(page, `planpay-card-${lang}`);

    // The price through each method; Alipay takes the browser to the gateway's cashier.
    await payOnline.click();
    const dialog = page.getByTestId('plan-pay');
    await expect(dialog).toContainText(t('plan:wallet.payPrice', { price: '$2.00' }));
    const alipay = dialog.getByRole('button', { name: t('plan:wallet.payWith', { method: t('topup:online.alipay'), money: '¥14.60' }) });
    await expect(alipay).toBeVisible();
    await snapAtWidths(page, `planpay-dialog-${lang}`);
    await alipay.click();
    await expect(page).toHaveURL(new RegExp(`^${FAKE_EPAY}/submit\\.php`));
    await expect(page.locator('[data-field="money"]')).toHaveText('¥14.60');
    await page.getByRole('button', { name: /Pay/ }).click();

    // Back on the wallet: the plan is running, bought with the payment; the balance is unchanged.
    await expect(page).toHaveURL(/\/topup\?/);
    await expect(page.getByTestId('payment-result')).toContainText(t('topup:result.planBought', { name: planName }), { timeout: 20_000 });
    const mine = page.getByTestId('subscription').filter({ hasText: planName });
    await expect(mine).toBeVisible();
    await expect(mine.locator('[data-testid="window-meter"][data-window="day"]')).toBeVisible();
    await expect(balance).toContainText('$0.00');
    await snapAtWidths(page, `planpay-result-${lang}`);
  });
}
