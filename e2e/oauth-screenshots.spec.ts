import type { Page } from '@playwright/test';
import { startFakeOAuth, telegramLoginPayload, type FakeOAuth } from '@modelgate/testkit';
import { expect, test, tr, type Lang } from './fixtures';
import { BOT_NAME, BOT_TOKEN, CLIENT, identity, SERVER, setOptions, signInWithGitHub, stubTelegramScript, widgetCallback } from './oauth-support';

/**
 * Visual review aid for the sign-in methods (like screenshots.spec.ts, not an assertion suite):
 * `E2E_SHOTS=/tmp/shots npx playwright test -c e2e/playwright.config.ts oauth-screenshots` saves the
 * login page with every method on, the WeChat dialog, the callback screen's failure and the bindings.
 */
const dir = process.env.E2E_SHOTS;
test.skip(!dir, 'set E2E_SHOTS=<dir> to capture screenshots');
test.describe.configure({ mode: 'serial' });

let fake: FakeOAuth;

async function shot(page: Page, name: string) {
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(500);
  await page.screenshot({ path: `${dir}/oauth-${name}.png`, fullPage: true });
}

test.beforeAll(async () => {
  fake = await startFakeOAuth(CLIENT);
  await setOptions({
    OutboundAllowedRanges: '127.0.0.1/32',
    GitHubOAuthEndpoint: fake.url,
    GitHubApiEndpoint: fake.url,
    GitHubClientId: CLIENT.clientId,
    GitHubClientSecret: CLIENT.clientSecret,
    GitHubOAuthEnabled: 'true',
    LinuxDOOAuthEndpoint: fake.url,
    LinuxDOClientId: CLIENT.clientId,
    LinuxDOClientSecret: CLIENT.clientSecret,
    LinuxDOOAuthEnabled: 'true',
    OIDCWellKnown: fake.discoveryUrl,
    OIDCClientId: CLIENT.clientId,
    OIDCClientSecret: CLIENT.clientSecret,
    OIDCEnabled: 'true',
    WeChatServerAddress: 'http://127.0.0.1:9',
    WeChatServerToken: 'e2e',
    WeChatAccountQRCodeImageURL: `${SERVER}/logo.svg`,
    WeChatAuthEnabled: 'true',
    TelegramBotName: BOT_NAME,
    TelegramBotToken: BOT_TOKEN,
    TelegramOAuthEnabled: 'true',
  });
});

test.afterAll(async () => {
  await setOptions({ GitHubOAuthEnabled: 'false', LinuxDOOAuthEnabled: 'false', OIDCEnabled: 'false', WeChatAuthEnabled: 'false', TelegramOAuthEnabled: 'false' });
  await fake?.close();
});

for (const width of [1366, 1920]) {
  for (const lang of ['zh', 'en'] as Lang[]) {
    test(`sign-in methods ${lang}-${width}`, async ({ page, consoleGuard }) => {
      test.setTimeout(180_000);
      // The callback screen's failure is a refused state: Chrome logs the 403.
      consoleGuard.allow((message) => /status of 403/.test(message.text));
      const tag = `${lang}-${width}`;
      await page.setViewportSize({ width, height: 860 });
      await page.addInitScript((l) => localStorage.setItem('i18nextLng', l), lang);
      await stubTelegramScript(page);

      await page.goto('/login');
      await expect(page.getByRole('button', { name: tr(lang, 'auth:oauth.with.oidc') })).toBeVisible();
      await shot(page, `login-${tag}`);
      await page.getByRole('button', { name: tr(lang, 'auth:oauth.with.wechat') }).click();
      await expect(page.getByRole('dialog', { name: tr(lang, 'auth:oauth.wechatTitle') })).toBeVisible();
      await shot(page, `wechat-${tag}`);

      await page.goto('/oauth/github?code=expired&state=stale');
      await expect(page.getByTestId('oauth-error')).toBeVisible();
      await shot(page, `callback-error-${tag}`);

      fake.setIdentity(identity());
      await signInWithGitHub(page, lang);
      await page.goto('/setting');
      await page.getByTestId('binding-telegram').getByRole('button').click();
      await widgetCallback(page, telegramLoginPayload(BOT_TOKEN, { id: 700_000 + width + (lang === 'zh' ? 1 : 2), first_name: 'Tele' }));
      await expect(page.getByTestId('binding-telegram')).toContainText(String(700_000 + width + (lang === 'zh' ? 1 : 2)));
      await shot(page, `setting-${tag}`);
    });
  }
}
