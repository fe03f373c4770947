import { expect, login, register, test, tr, uniqueName } from './fixtures';

test('an expired session lands on /login?expired=true with the message', async ({ page, consoleGuard }) => {
  // The 401 itself is the point of this test; Chrome logs every failed resource load.
  consoleGuard.allow((message) => /status of 401/.test(message.text));
  const username = uniqueName('s');
  await register(page, 'zh', username, 'password123');
  await login(page, 'zh', username, 'password123');
  // The token screen's own calls must be done first: one still loading after the cookies are gone
  // would meet the 401 on this page and forget the user before the navigation below.
  await page.waitForLoadState('networkidle');
  // A public page makes no signed-in calls, so nothing can meet the 401 before /token does.
  await page.goto('/about');
  await page.waitForLoadState('networkidle');

  await page.context().clearCookies();
  await page.goto('/token');
  await expect(page).toHaveURL(/\/login\?expired=true$/);
  await expect(page.getByText(tr('zh', 'auth:login.expired'))).toBeVisible();
  // The header no longer claims a signed-in user.
  await expect(page.getByTestId('user-menu')).toHaveCount(0);
});

test('guards: visitors go to /login, users cannot open admin screens, unknown paths are not found', async ({ page }) => {
  await page.goto('/token');
  await expect(page).toHaveURL(/\/login$/);
  await page.goto('/setting');
  await expect(page).toHaveURL(/\/login$/);

  await page.goto('/no/such/page');
  await expect(page.getByText(tr('zh', 'notFound.title'), { exact: true })).toBeVisible();

  const username = uniqueName('g');
  await register(page, 'zh', username, 'password123');
  await login(page, 'zh', username, 'password123');
  await expect(page.getByTestId('side-nav').getByText(tr('zh', 'nav.user'), { exact: true })).toHaveCount(0);
  await page.goto('/user');
  await expect(page.getByText(tr('zh', 'forbidden.title'), { exact: true })).toBeVisible();

  // The aff query value from an invite link is kept for registration.
  await page.goto('/login?aff=INV1');
  // Stored by the login screen once it mounts, which can land just after the load event.
  await expect.poll(() => page.evaluate(() => localStorage.getItem('aff'))).toBe('INV1');

  // Signed in already: the login page says so instead of showing the form.
  await expect(page.getByText(tr('zh', 'auth:login.signedInAs', { name: username }))).toBeVisible();
  await expect(page.getByLabel(tr('zh', 'auth:login.password'))).toHaveCount(0);
  await page.getByRole('button', { name: tr('zh', 'auth:login.toConsole') }).click();
  await expect(page).toHaveURL(/\/token$/);
  await page.goto('/login');
  await page.getByRole('button', { name: tr('zh', 'auth:login.switchAccount') }).click();
  await expect(page.getByLabel(tr('zh', 'auth:login.password'))).toBeVisible();
  await page.goto('/token');
  await expect(page).toHaveURL(/\/login$/);
});
