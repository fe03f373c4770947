import { startFakeOAuth, type FakeOAuth } from '@modelgate/testkit';
import { expect, test, tr, useLanguage, type Lang } from './fixtures';
import { CLIENT, identity, setOptions } from './oauth-support';

/**
 * Discord in the browser: the login page's button, the testkit's OAuth fake standing in for Discord
 * (authorize page, form-encoded token exchange, /users/@me), the callback screen; then the binding
 * in personal settings, removed and bound again.
 */
let fake: FakeOAuth;

test.describe.configure({ timeout: 120_000 });

test.beforeAll(async () => {
  fake = await startFakeOAuth({ ...CLIENT, identity: identity() });
  await setOptions({
    // The fake listens on loopback, which outbound fetches reach only when the operator allows it.
    OutboundAllowedRanges: '127.0.0.1/32',
    DiscordOAuthEndpoint: fake.url,
    DiscordClientId: CLIENT.clientId,
    DiscordClientSecret: CLIENT.clientSecret,
    DiscordOAuthEnabled: 'true',
  });
});

test.afterAll(async () => {
  // Other spec files share this server: leave the login page as they expect it.
  await setOptions({ DiscordOAuthEnabled: 'false' });
  await fake?.close();
});

for (const lang of ['zh', 'en'] as Lang[]) {
  test(`a visitor signs up with Discord, then removes and binds it again in personal settings (${lang})`, async ({ page }) => {
    await useLanguage(page, lang);
    const who = { ...identity(), id: `11${Date.now()}` };
    fake.setIdentity(who);
    await page.goto('/login');
    await page.getByRole('button', { name: tr(lang, 'auth:oauth.with.discord') }).click();
    await expect(page).toHaveURL(/\/token$/);
    await expect(page.getByTestId('user-menu')).toContainText(/discord_\d+/);

    await page.goto('/setting');
    const row = page.getByTestId('binding-discord');
    await expect(row).toContainText(who.id);
    await row.getByRole('button', { name: tr(lang, 'setting:bindings.remove') }).click();
    const confirm = page.getByRole('dialog').filter({ hasText: tr(lang, 'setting:bindings.removeTitle', { method: 'Discord' }) });
    await confirm.getByRole('button', { name: tr(lang, 'setting:bindings.remove'), exact: true }).click();
    await expect(row).toContainText(tr(lang, 'setting:bindings.none'));

    // Bound again through Discord's page: the callback screen binds and comes back to settings.
    await row.getByRole('button', { name: tr(lang, 'setting:bindings.bind') }).click();
    await expect(page).toHaveURL(/\/setting$/);
    await expect(page.getByTestId('binding-discord')).toContainText(who.id);
  });
}
