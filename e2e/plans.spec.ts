import { consoleApi, expect, FAKE_KEY, FAKE_UPSTREAM, login, loginAsRoot, newToken, setModelEntry, signOut, snapAtWidths, test, tr, uniqueName, useLanguage, type Lang } from './fixtures';

/**
 * Plans and periodic limits (issue 32): an admin creates a plan on /plan; a user buys it in the
 * wallet, watches its meter move as relay calls are paid by it, and hits its limit with a clear
 * message in the caller's language. `E2E_SHOTS=<dir>` also saves the plan screen and the wallet's
 * meters at 1366 and 1920 px.
 */

for (const lang of ['zh', 'en'] as Lang[]) {
  test(`a user buys a plan, its meter moves with relay calls, and its limit refuses clearly (${lang})`, async ({ page, baseURL }) => {
    const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);
    test.setTimeout(180_000);
    const run = `pl${lang}${Date.now().toString(36).slice(-5)}`;
    const model = `e2e-plan-${lang}`;
    const planName = `Plan ${run}`;
    await useLanguage(page, lang);
    await loginAsRoot(page, lang);

    // Set-up through the API: a channel for a model of this test, priced.
    await consoleApi(page, 'POST', '/api/channel/', { type: 1, name: run, key: FAKE_KEY, base_url: FAKE_UPSTREAM, models: model, groups: ['default'], group: 'default' });
    await setModelEntry(page, 'ModelRatio', model, 1);
    const username = uniqueName('pu');
    await consoleApi(page, 'POST', '/api/user/', { username, password: 'password123' });
    const found = await consoleApi<{ items: Array<{ id: number }> }>(page, 'GET', `/api/user/search?keyword=${username}`);
    await consoleApi(page, 'PUT', '/api/user/', { id: found.items[0]!.id, quota: 2_500_000 });

    // The admin creates the plan on its screen: $2 for 30 days, 2 requests a day, nothing beyond.
    await page.getByTestId('side-nav').getByRole('link', { name: t('nav.plan'), exact: true }).click();
    await expect(page).toHaveURL(/\/plan$/);
    await page.getByRole('button', { name: t('plan:add'), exact: true }).click();
    const drawer = page.getByRole('dialog', { name: t('plan:form.createTitle') });
    await drawer.getByLabel(t('plan:form.name')).fill(planName);
    await drawer.getByLabel(t('plan:form.price')).fill('1000000');
    await drawer.getByLabel(`${t('limits:periodLimits.window.day')} ${t('limits:periodLimits.quota')}`).fill('0');
    await drawer.getByLabel(`${t('limits:periodLimits.window.day')} ${t('limits:periodLimits.requests')}`).fill('2');
    await drawer.getByLabel(`${t('limits:periodLimits.window.week')} ${t('limits:periodLimits.quota')}`).fill('5000000');
    await drawer.getByRole('switch', { name: t('plan:form.fallThrough') }).click();
    await snapAtWidths(page, `plan-drawer-${lang}`);
    await drawer.getByRole('button', { name: t('common:action.save') }).click();
    await expect(page.getByText(t('plan:action.saved'))).toBeVisible();
    const row = page.locator('.ant-table-tbody tr.ant-table-row').filter({ hasText: planName });
    await expect(row).toContainText('$2.00');
    await expect(row).toContainText(t('plan:allowance.item', { window: t('limits:periodLimits.window.day'), caps: t('plan:allowance.requests', { count: 2 }) }));
    await expect(row).toContainText(t('plan:overflow.refuse'));
    await snapAtWidths(page, `plan-screen-${lang}`);
    await signOut(page, lang);

    // The user buys it in the wallet, from the balance.
    await login(page, lang, username, 'password123');
    await page.goto('/topup');
    await expect(page.getByTestId('wallet-balance')).toContainText('$5.00');
    const offer = page.getByTestId('plan-offer').filter({ hasText: planName });
    await offer.getByRole('button', { name: t('plan:wallet.buy') }).click();
    await page.locator('.ant-popover').getByRole('button').last().click();
    await expect(page.getByText(t('plan:wallet.bought'))).toBeVisible();
    await expect(page.getByTestId('wallet-balance')).toContainText('$3.00');
    const mine = page.getByTestId('subscription').filter({ hasText: planName });
    const dayMeter = mine.locator('[data-testid="window-meter"][data-window="day"]');
    await expect(dayMeter).toContainText(t('limits:meters.requests', { used: 0, limit: 2, left: 2 }));

    // Two calls are paid by the plan; the meter moves; the balance does not.
    const key = await newToken(page, run);
    const call = () =>
      fetch(`${baseURL}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'accept-language': lang },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'paid by the plan' }], max_tokens: 16 }),
      });
    for (let i = 0; i < 2; i++) expect((await call()).status).toBe(200);
    await page.reload();
    await expect(dayMeter).toContainText(t('limits:meters.requests', { used: 2, limit: 2, left: 0 }));
    await expect(page.getByTestId('wallet-balance')).toContainText('$3.00');
    await expect(mine.locator('[data-testid="window-meter"][data-window="week"] [data-unit="quota"]')).toBeVisible();
    await snapAtWidths(page, `wallet-meters-${lang}`);

    // The third: refused, naming the plan, the window and when it refills, in the caller's language.
    const refused = await call();
    expect(refused.status).toBe(429);
    const message = ((await refused.json()) as { error: { message: string } }).error.message;
    expect(message).toMatch(
      lang === 'zh'
        ? new RegExp(`^套餐「${planName}」的每日请求次数额度（2）已用完，将于 \\d{4}-\\d\\d-\\d\\d 00:00 \\(.+\\) 恢复$`)
        : new RegExp(`^Plan "${planName}" has used up its daily request allowance \\(2\\); it refills at \\d{4}-\\d\\d-\\d\\d 00:00 \\(.+\\)$`),
    );

    // The dashboard shows the same meter; the usage log says the plan paid.
    await page.goto('/detail');
    await expect(page.locator('[data-testid="window-meter"][data-scope="plan"][data-window="day"]')).toContainText(t('limits:meters.requests', { used: 2, limit: 2, left: 0 }));
    await page.goto('/log');
    await expect(page.getByTestId('log-paid-by').first()).toHaveText(t('log:column.paidByPlan', { name: planName }));
  });
}
