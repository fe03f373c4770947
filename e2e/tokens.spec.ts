import { expect, login, register, test, tr, uniqueName, useLanguage, type Lang } from './fixtures';

for (const lang of ['zh', 'en'] as Lang[]) {
  test(`a new user registers, logs in and manages tokens (${lang})`, async ({ page }) => {
    await useLanguage(page, lang);
    const username = uniqueName('u');
    await register(page, lang, username, 'password123');
    await login(page, lang, username, 'password123');
    await expect(page.getByText(tr(lang, 'token:empty'))).toBeVisible();

    // Create three tokens at once: the extra two get "-" and six random characters.
    await page.getByRole('button', { name: tr(lang, 'token:add'), exact: true }).click();
    const drawer = page.getByRole('dialog', { name: tr(lang, 'token:drawer.createTitle') });
    await drawer.getByLabel(tr(lang, 'token:field.name')).fill('ci');
    await drawer.getByLabel(tr(lang, 'token:field.count')).fill('3');
    await drawer.getByRole('button', { name: tr(lang, 'common:action.submit'), exact: true }).click();
    await expect(page.getByText(tr(lang, 'token:drawer.created'))).toBeVisible();
    const rows = page.locator('.ant-table-tbody tr.ant-table-row');
    await expect(rows).toHaveCount(3);
    await expect(rows.filter({ hasText: /ci-[A-Za-z0-9]{6}/ })).toHaveCount(2);

    // Copy one key: the clipboard holds it with the sk- prefix.
    const first = rows.filter({ has: page.getByText('ci', { exact: true }) });
    await first.getByRole('button', { name: tr(lang, 'common:action.copy'), exact: true }).click();
    await expect(page.getByText(tr(lang, 'token:copied'), { exact: true })).toBeVisible();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toMatch(/^sk-[A-Za-z0-9]{48}$/);

    // Copy selected: refused without a selection, then one "name    sk-key" line per token.
    await page.getByRole('button', { name: tr(lang, 'token:copySelected'), exact: true }).click();
    await expect(page.getByText(tr(lang, 'token:selectAtLeastOne'))).toBeVisible();
    await page.locator('.ant-table-thead .ant-checkbox-input').check();
    await page.getByRole('button', { name: tr(lang, 'token:copySelected'), exact: true }).click();
    await expect(page.getByText(tr(lang, 'token:copiedMany', { count: 3 }))).toBeVisible();
    const lines = (await page.evaluate(() => navigator.clipboard.readText())).split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(/^ci(-[A-Za-z0-9]{6})? {4}sk-[A-Za-z0-9]{48}$/);

    // Disable, then enable again.
    await first.getByRole('button', { name: tr(lang, 'token:action.disable'), exact: true }).click();
    await expect(first.getByText(tr(lang, 'token:status.disabled'), { exact: true })).toBeVisible();
    await first.getByRole('button', { name: tr(lang, 'token:action.enable'), exact: true }).click();
    await expect(first.getByText(tr(lang, 'token:status.enabled'), { exact: true })).toBeVisible();

    // Edit: a malformed expiry is refused; the "1 day" shortcut is accepted.
    await first.getByRole('button', { name: tr(lang, 'common:action.edit'), exact: true }).click();
    const editor = page.getByRole('dialog', { name: tr(lang, 'token:drawer.editTitle') });
    await expect(editor.getByLabel(tr(lang, 'token:field.name'))).toHaveValue('ci');
    await editor.getByLabel(tr(lang, 'token:field.expiry')).fill('not a date');
    await editor.getByRole('button', { name: tr(lang, 'common:action.submit'), exact: true }).click();
    await expect(page.getByText(tr(lang, 'token:drawer.problem.badExpiry'))).toBeVisible();
    await editor.getByRole('button', { name: tr(lang, 'token:field.expiryShortcut.day'), exact: true }).click();
    await editor.getByRole('button', { name: tr(lang, 'common:action.submit'), exact: true }).click();
    await expect(page.getByText(tr(lang, 'token:drawer.updated'))).toBeVisible();
    await expect(first.getByText(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/)).toHaveCount(2);

    // Delete one (after confirming), then search the rest by name.
    await first.getByRole('button', { name: tr(lang, 'common:action.delete'), exact: true }).click();
    await page
      .locator('.ant-popconfirm')
      .getByRole('button', { name: tr(lang, 'common:action.delete'), exact: true })
      .click();
    await expect(rows).toHaveCount(2);
    await page.getByLabel(tr(lang, 'token:search.keyword')).fill('ci-');
    await page.getByRole('button', { name: tr(lang, 'token:search.submit'), exact: true }).click();
    await expect(rows).toHaveCount(2);
    await page.getByLabel(tr(lang, 'token:search.keyword')).fill('no-such-token');
    await page.getByRole('button', { name: tr(lang, 'token:search.submit'), exact: true }).click();
    await expect(page.getByText(tr(lang, 'token:empty'))).toBeVisible();
  });
}

test('registration enforces the password rules', async ({ page }) => {
  await page.goto('/register');
  const lang: Lang = 'zh';
  const fill = async (password: string, password2: string) => {
    await page.getByLabel(tr(lang, 'auth:register.username')).fill(uniqueName('r'));
    await page.getByLabel(tr(lang, 'auth:register.password'), { exact: true }).fill(password);
    await page.getByLabel(tr(lang, 'auth:register.password2')).fill(password2);
    await page.getByRole('button', { name: tr(lang, 'auth:register.submit'), exact: true }).click();
  };
  await fill('short', 'short');
  await expect(page.getByText(tr(lang, 'auth:register.problem.passwordTooShort'))).toBeVisible();
  await fill('password123', 'password456');
  await expect(page.getByText(tr(lang, 'auth:register.problem.passwordMismatch'))).toBeVisible();
  await expect(page).toHaveURL(/\/register$/);
});
