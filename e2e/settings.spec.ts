import { expect, login, register, test, tr, uniqueName } from './fixtures';

test('personal settings: invite link, access token, password change and account deletion', async ({ page, baseURL }) => {
  const lang = 'zh';
  const username = uniqueName('p');
  await register(page, lang, username, 'password123');
  await login(page, lang, username, 'password123');
  await page.getByTestId('side-nav').getByRole('link', { name: tr(lang, 'nav.setting'), exact: true }).click();
  await expect(page).toHaveURL(/\/setting$/);
  await expect(page.getByTestId('account-username')).toHaveText(username);

  const invite = page.getByTestId('invite-link');
  await expect(invite).toHaveValue(new RegExp(`^${baseURL}/register\\?aff=\\w+$`));
  await page.locator('.ant-card').filter({ hasText: tr(lang, 'setting:invite.title') })
    .getByRole('button', { name: tr(lang, 'common:action.copy'), exact: true }).click();
  await expect(page.getByText(tr(lang, 'setting:invite.copied'))).toBeVisible();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(await invite.inputValue());

  await page.getByRole('button', { name: tr(lang, 'setting:accessToken.generate'), exact: true }).click();
  await expect(page.getByText(tr(lang, 'setting:accessToken.copied'))).toBeVisible();
  const accessToken = await page.getByTestId('access-token').inputValue();
  expect(accessToken.length).toBeGreaterThan(16);
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(accessToken);

  const passwordCard = page.locator('.ant-card').filter({ hasText: tr(lang, 'setting:password.title') });
  await passwordCard.getByLabel(tr(lang, 'setting:password.current'), { exact: true }).fill('password123');
  await passwordCard.getByLabel(tr(lang, 'setting:password.new'), { exact: true }).fill('newpassword1');
  await passwordCard.getByLabel(tr(lang, 'setting:password.confirm'), { exact: true }).fill('different1');
  await passwordCard.getByRole('button', { name: tr(lang, 'setting:password.submit'), exact: true }).click();
  await expect(passwordCard.getByText(tr(lang, 'setting:password.mismatch'))).toBeVisible();
  await passwordCard.getByLabel(tr(lang, 'setting:password.confirm'), { exact: true }).fill('newpassword1');
  await passwordCard.getByRole('button', { name: tr(lang, 'setting:password.submit'), exact: true }).click();
  await expect(page.getByText(tr(lang, 'setting:password.changed'))).toBeVisible();

  // Log out from the user menu and back in with the new password.
  await page.getByTestId('user-menu').click();
  await page.getByRole('menuitem', { name: tr(lang, 'auth.logout') }).click();
  await expect(page).toHaveURL(/\/login$/);
  await login(page, lang, username, 'newpassword1');

  await page.goto('/setting');
  await page.getByRole('button', { name: tr(lang, 'setting:delete.button'), exact: true }).click();
  const dialog = page.getByRole('dialog', { name: tr(lang, 'setting:delete.confirmTitle') });
  const confirmInput = dialog.getByRole('textbox');
  await confirmInput.fill(`${username}x`);
  await dialog.getByRole('button', { name: tr(lang, 'setting:delete.confirm'), exact: true }).click();
  await expect(page.getByText(tr(lang, 'setting:delete.typeName'))).toBeVisible();
  await confirmInput.fill(username);
  await dialog.getByRole('button', { name: tr(lang, 'setting:delete.confirm'), exact: true }).click();
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByText(tr(lang, 'setting:delete.done'))).toBeVisible();
});
