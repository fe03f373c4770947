import { request, type Page } from '@playwright/test';
import { startFakeOAuth, telegramLoginPayload, type FakeIdentity, type FakeOAuth } from '@modelgate/testkit';
import { expect, login, signOut, test, tr, uniqueName, useLanguage, type Lang } from './fixtures';
import { BOT_TOKEN, BOT_NAME, CLIENT, identity, SERVER, setOptions, signInWithGitHub, stubTelegramScript, widgetCallback } from './oauth-support';

/**
 * Sign-in and bindings (issue 16) in the browser: GitHub's redirect flow through the testkit's OAuth
 * fake (on loopback, so the operator's OutboundAllowedRanges must allow it), and Telegram's widget
 * callback with payloads signed by the testkit (the widget script itself is Telegram's, stubbed here).
 */
let fake: FakeOAuth;

/** A password user, registered through the API (set-up) and signed in through the login page. */
async function newUser(page: Page, lang: Lang): Promise<string> {
  const username = uniqueName('b');
  const answer = (await (await page.request.post('/api/user/register', { data: { username, password: 'password123' } })).json()) as { success: boolean; message: string };
  if (!answer.success) throw new Error(`register ${username}: ${answer.message}`);
  await login(page, lang, username, 'password123');
  return username;
}

/** Someone else signs up with `who` (set-up: the browser's part of the flow done by hand, as the API tests do). */
async function ownerOf(who: FakeIdentity): Promise<void> {
  fake.setIdentity(who);
  const api = await request.newContext({ baseURL: SERVER });
  try {
    const authorize = (await (await api.get('/api/oauth/authorize?type=github')).json()) as { data: string };
    const approved = await api.get(authorize.data, { maxRedirects: 0 });
    const back = new URL(approved.headers().location!);
    const signedUp = (await (await api.get(`/api/oauth/github${back.search}`)).json()) as { success: boolean; message: string };
    if (!signedUp.success) throw new Error(`owner sign-up: ${signedUp.message}`);
  } finally {
    await api.dispose();
  }
}

// Each flow crosses the console, the server and the fake provider several times: slow on a busy 2-core machine.
test.describe.configure({ timeout: 120_000 });

test.beforeAll(async () => {
  fake = await startFakeOAuth({ ...CLIENT, identity: identity() });
  await setOptions({
    // The fake listens on loopback, which outbound fetches reach only when the operator allows it.
    OutboundAllowedRanges: '127.0.0.1/32',
    GitHubOAuthEndpoint: fake.url,
    GitHubApiEndpoint: fake.url,
    GitHubClientId: CLIENT.clientId,
    GitHubClientSecret: CLIENT.clientSecret,
    GitHubOAuthEnabled: 'true',
    TelegramBotName: BOT_NAME,
    TelegramBotToken: BOT_TOKEN,
  });
});

test.afterAll(async () => {
  // Other spec files share this server: leave the login page as they expect it. OutboundAllowedRanges
  // stays: other specs' loopback fakes need the same allowance (tasks.spec.ts sets it too).
  await setOptions({ GitHubOAuthEnabled: 'false', TelegramOAuthEnabled: 'false' });
  await fake?.close();
});

for (const lang of ['zh', 'en'] as Lang[]) {
  test(`a visitor signs up with GitHub, signs out and signs in again as the same user (${lang})`, async ({ page }) => {
    await useLanguage(page, lang);
    const who = identity();
    fake.setIdentity(who);
    const first = await signInWithGitHub(page, lang);

    await page.goto('/setting');
    await expect(page.getByTestId('binding-github')).toContainText(who.login);
    // The account card shows the display name GitHub gave.
    await expect(page.getByTestId('account-username')).toHaveText(who.name!);

    await signOut(page, lang);
    await expect(page.getByTestId('user-menu')).toHaveCount(0);

    expect(await signInWithGitHub(page, lang)).toBe(first);
  });

  test(`a user binds GitHub in personal settings and cannot take another user's identity (${lang})`, async ({ page }) => {
    await useLanguage(page, lang);
    const held = identity();
    await ownerOf(held);

    await newUser(page, lang);
    await page.goto('/setting');
    const row = page.getByTestId('binding-github');
    await expect(row).toContainText(tr(lang, 'setting:bindings.none'));

    // Their own identity: bound, and shown.
    const mine = identity();
    fake.setIdentity(mine);
    await row.getByRole('button', { name: tr(lang, 'setting:bindings.bind'), exact: true }).click();
    await expect(page).toHaveURL(/\/setting$/);
    await expect(page.getByText(tr(lang, 'auth:oauth.bound'))).toBeVisible();
    await expect(row).toContainText(mine.login);

    // The identity the first user signed up with: refused on the callback screen, nothing changes.
    fake.setIdentity(held);
    await row.getByRole('button', { name: tr(lang, 'setting:bindings.rebind'), exact: true }).click();
    await expect(page).toHaveURL(/\/oauth\/github\?/);
    await expect(page.getByTestId('oauth-error')).toHaveText(lang === 'zh' ? '该账户已绑定到其他用户' : 'This account is already bound to another user');
    await page.getByRole('button', { name: tr(lang, 'auth:oauth.backToSetting') }).click();
    await expect(page).toHaveURL(/\/setting$/);
    await expect(row).toContainText(mine.login);
    await expect(row).not.toContainText(held.login);
  });

  test(`a user binds Telegram through the widget; a forged payload is refused (${lang})`, async ({ page }) => {
    await setOptions({ TelegramOAuthEnabled: 'true' });
    try {
      await useLanguage(page, lang);
      await stubTelegramScript(page);
      await newUser(page, lang);
      await page.goto('/setting');
      const row = page.getByTestId('binding-telegram');
      // The settings screen draws this row once both the site status and the user have loaded: on a
      // busy 2-CPU machine that once took longer than the default 10 s.
      await expect(row).toContainText(tr(lang, 'setting:bindings.none'), { timeout: 30_000 });
      await row.getByRole('button', { name: tr(lang, 'setting:bindings.bind'), exact: true }).click();
      const dialog = page.getByRole('dialog', { name: tr(lang, 'setting:bindings.method.telegram') });
      await expect(dialog.getByTestId('telegram-widget')).toBeAttached();

      const telegramId = Date.now() % 1_000_000_000;
      const forged = telegramLoginPayload('000000:another-bot', { id: telegramId, first_name: 'Eve', username: 'eve' });
      await widgetCallback(page, forged);
      await expect(page.getByText(lang === 'zh' ? 'Telegram 登录数据校验失败' : 'The Telegram login data failed verification')).toBeVisible();
      await expect(row).toContainText(tr(lang, 'setting:bindings.none'));

      const valid = telegramLoginPayload(BOT_TOKEN, { id: telegramId, first_name: 'Tele', username: 'tele' });
      await widgetCallback(page, valid);
      await expect(page.getByText(tr(lang, 'setting:bindings.telegramBound'))).toBeVisible();
      await expect(dialog).toBeHidden();
      await expect(row).toContainText(String(telegramId));
    } finally {
      await setOptions({ TelegramOAuthEnabled: 'false' });
    }
  });
}
