import type { Page } from '@playwright/test';
import { startFakeOAuth, startFakeWeChatServer, type FakeOAuth, type FakeWeChatServer } from '@modelgate/testkit';
import { expect, signOut, test, tr, useLanguage, type Lang } from './fixtures';
import { CLIENT, identity, setOptions } from './oauth-support';

/**
 * The other sign-in methods in the browser (oauth.spec.ts covers GitHub and Telegram): LinuxDO's and
 * generic OIDC's redirect flows through the testkit's OAuth fake (OIDC with discovery, PKCE and a
 * signed ID token), and WeChat's code entered in the login page's dialog, answered by the fake WeChat
 * server. Each visitor is new, so each flow creates the user; signing in again finds the same one.
 */
let fake: FakeOAuth;
let wechat: FakeWeChatServer;
const WECHAT_TOKEN = 'mg-e2e-wechat-token';

// Each flow crosses the console, the server and the fake provider several times: slow on a busy 2-core machine.
test.describe.configure({ timeout: 120_000 });

test.beforeAll(async () => {
  // The fake's requirePkce would apply to LinuxDO too, which has no PKCE; ModelGate sends S256 to OIDC regardless.
  fake = await startFakeOAuth({ ...CLIENT, identity: identity() });
  wechat = await startFakeWeChatServer({ token: WECHAT_TOKEN });
  await setOptions({
    // Both fakes listen on loopback, which outbound fetches reach only when the operator allows it.
    OutboundAllowedRanges: '127.0.0.1/32',
    LinuxDOOAuthEndpoint: fake.url,
    LinuxDOClientId: CLIENT.clientId,
    LinuxDOClientSecret: CLIENT.clientSecret,
    LinuxDOOAuthEnabled: 'true',
    OIDCWellKnown: fake.discoveryUrl,
    OIDCClientId: CLIENT.clientId,
    OIDCClientSecret: CLIENT.clientSecret,
    OIDCEnabled: 'true',
    WeChatServerAddress: wechat.url,
    WeChatServerToken: WECHAT_TOKEN,
    WeChatAuthEnabled: 'true',
  });
});

test.afterAll(async () => {
  // Other spec files share this server: leave the login page as they expect it.
  await setOptions({ LinuxDOOAuthEnabled: 'false', OIDCEnabled: 'false', WeChatAuthEnabled: 'false' });
  await fake?.close();
  await wechat?.close();
});

type Method = 'linuxdo' | 'oidc';

/** The login page's button for `method`, the fake's authorize page (auto-approving), the callback screen. */
async function signInWith(page: Page, lang: Lang, method: Method): Promise<string> {
  await page.goto('/login');
  await page.getByRole('button', { name: tr(lang, `auth:oauth.with.${method}`) }).click();
  await expect(page).toHaveURL(/\/token$/);
  await expect(page.getByText(tr(lang, 'auth:login.success'))).toBeVisible();
  const menu = page.getByTestId('user-menu');
  await expect(menu).toContainText(new RegExp(`${method}_\\d+`));
  return (await menu.innerText()).trim();
}

for (const lang of ['zh', 'en'] as Lang[]) {
  for (const method of ['linuxdo', 'oidc'] as Method[]) {
    test(`a visitor signs up with ${method}, signs out and signs in again as the same user (${lang})`, async ({ page }) => {
      await useLanguage(page, lang);
      const who = identity();
      fake.setIdentity(method === 'oidc' ? { ...who, id: `sub-${who.id}` } : who);
      const first = await signInWith(page, lang, method);
      await page.goto('/setting');
      await expect(page.getByTestId('account-username')).toHaveText(who.name!);
      await signOut(page, lang);
      expect(await signInWith(page, lang, method)).toBe(first);
    });
  }

  test(`a visitor signs in with a WeChat code; a wrong code is refused and the dialog stays (${lang})`, async ({ page }) => {
    await useLanguage(page, lang);
    await page.goto('/login');
    await page.getByRole('button', { name: tr(lang, 'auth:oauth.with.wechat') }).click();
    const dialog = page.getByRole('dialog', { name: tr(lang, 'auth:oauth.wechatTitle') });
    await expect(dialog).toBeVisible();
    const code = dialog.getByLabel(tr(lang, 'auth:oauth.wechatCode'));

    await code.fill('000000');
    await dialog.getByRole('button', { name: tr(lang, 'auth:oauth.wechatSubmit') }).click();
    await expect(page.getByText(lang === 'zh' ? /身份提供方拒绝了授权码/ : /The provider rejected the authorization code/).first()).toBeVisible();
    await expect(dialog).toBeVisible();
    await expect(page).toHaveURL(/\/login$/);

    const openid = `openid-${lang}-${Date.now()}`;
    await code.fill(wechat.issueCode(openid));
    await dialog.getByRole('button', { name: tr(lang, 'auth:oauth.wechatSubmit') }).click();
    await expect(page).toHaveURL(/\/token$/);
    const menu = page.getByTestId('user-menu');
    await expect(menu).toContainText(/wechat_\d+/);
    const first = (await menu.innerText()).trim();

    await signOut(page, lang);
    await page.getByRole('button', { name: tr(lang, 'auth:oauth.with.wechat') }).click();
    await code.fill(wechat.issueCode(openid));
    await dialog.getByRole('button', { name: tr(lang, 'auth:oauth.wechatSubmit') }).click();
    await expect(page).toHaveURL(/\/token$/);
    await expect(menu).toHaveText(first);
  });
}
