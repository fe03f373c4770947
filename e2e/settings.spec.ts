import type { Page } from '@playwright/test';
import OpenAI from 'openai';
import { consoleApi, expect, FAKE_UPSTREAM, login, loginAsRoot, register, signOut, test, tr, uniqueName, useLanguage, type Lang } from './fixtures';

test('personal settings: invite link, access token, password change and account deletion', async ({ page, baseURL }) => {
  // Register, sign in, four cards and a deletion: slower than the default budget on a busy 2-core machine.
  test.setTimeout(180_000);
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
  await signOut(page, lang);
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

/** Spec §2.6: the sections of each super-admin tab, in order (the model-ratio editors are their own test). */
const TABS: Record<'operation' | 'system' | 'other', string[]> = {
  operation: ['general', 'drawing', 'sensitive', 'logs', 'dashboard', 'monitoring', 'quota', 'chats', 'groups'],
  system: ['server', 'worker', 'payment', 'login', 'emailDomain', 'smtp', 'github', 'linuxdo', 'oidc', 'wechat', 'telegram', 'turnstile'],
  other: ['notice', 'branding', 'homeContent', 'about', 'footer'],
};
/** Set E2E_SHOTS=<dir> to keep a picture of every section (1366 and 1920 wide) for review. */
const shots = process.env.E2E_SHOTS;

const section = (page: Page, name: string) => page.locator(`[data-section="${name}"]`);

async function noHorizontalOverflow(page: Page) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
}

/** Upstream attempts the fake OpenAI saw for `model`. */
async function attempts(model: string): Promise<number> {
  const res = await fetch(`${FAKE_UPSTREAM}/__fake/requests`);
  const { requests } = (await res.json()) as { requests: Array<{ body?: { model?: string } }> };
  return requests.filter((r) => r.body?.model === model).length;
}

async function newToken(page: Page, name: string): Promise<string> {
  await consoleApi(page, 'POST', '/api/token/', {
    name, remain_quota: 0, expired_time: -1, unlimited_quota: true, model_limits_enabled: false, model_limits: '', allow_ips: '', group: '',
  });
  const [token] = await consoleApi<{ key: string }[]>(page, 'GET', `/api/token/search?keyword=${name}&token=`);
  return `sk-${token.key}`;
}

for (const lang of ['zh', 'en'] as Lang[]) {
  test(`settings tabs (${lang}): every section loads, saves, checks its input, and RetryTimes changes the upstream attempts`, async ({ page, baseURL }) => {
    const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);
    test.setTimeout(shots ? 900_000 : 300_000);
    await useLanguage(page, lang);
    await loginAsRoot(page, lang);
    const run = `st${lang}${Date.now().toString(36).slice(-5)}`;
    // A model priced by default (an unpriced one is refused before any upstream call) that no other
    // browser test routes, one per language, so the fake's count is this test's alone.
    const model = lang === 'zh' ? 'gpt-3.5-turbo-1106' : 'gpt-4-1106-preview';

    // Three channels for one model, each with a key the upstream refuses (401, retryable): one
    // attempt per channel tried. No auto-ban, so a parallel test's switch cannot disable them.
    await consoleApi(page, 'PUT', '/api/option/', { key: 'RetryTimes', value: '0' });
    for (const n of [1, 2, 3]) {
      await consoleApi(page, 'POST', '/api/channel/', {
        type: 1, name: `${run}-${n}`, key: `sk-refused-${n}`, base_url: FAKE_UPSTREAM, models: model, groups: ['default'], group: 'default', auto_ban: 0,
      });
    }
    const client = new OpenAI({ baseURL: `${baseURL}/v1`, apiKey: await newToken(page, run), maxRetries: 0 });
    const call = () => client.chat.completions.create({ model, messages: [{ role: 'user', content: 'retry me' }] });
    await expect(call()).rejects.toThrow();
    expect(await attempts(model)).toBe(1);

    for (const [tab, names] of Object.entries(TABS)) {
      await page.goto(`/setting?tab=${tab}`);
      // The settings tabs are the outermost; the ratio editor has tabs of its own further down.
      await expect(page.locator('.ant-tabs-tab-active').first()).toHaveText(t(`setting:tabs.${tab}`));
      for (const name of names) {
        const card = section(page, name);
        await expect(card.locator('.ant-card-head-title')).toHaveText(t(`setting:section.${name}`));
        await expect(card.locator('.ant-skeleton')).toHaveCount(0);
        // Nothing changed: the section says so and sends nothing.
        await card.getByRole('button', { name: t('setting:section.save', { name: t(`setting:section.${name}`) }), exact: true }).click();
        await expect(page.getByText(t('setting:section.unchanged')).last()).toBeVisible();
        if (shots) {
          for (const width of [1366, 1920]) {
            await page.setViewportSize({ width, height: 900 });
            await card.screenshot({ path: `${shots}/setting-${lang}-${width}-${tab}-${name}.png` });
          }
        }
        await page.setViewportSize({ width: 1366, height: 900 });
        await noHorizontalOverflow(page);
      }
    }

    // General: RetryTimes 2 → the failing call is tried on all three channels.
    await page.goto('/setting?tab=operation');
    const general = section(page, 'general');
    await general.getByLabel(t('setting:option.RetryTimes.label'), { exact: true }).fill('2');
    await general.getByRole('button', { name: t('setting:section.save', { name: t('setting:section.general') }), exact: true }).click();
    await expect(page.getByText(t('setting:section.saved')).last()).toBeVisible();
    await expect(call()).rejects.toThrow();
    expect(await attempts(model)).toBe(1 + 3);

    // Groups: JSON is checked before anything is sent.
    const groups = section(page, 'groups');
    await groups.getByLabel(t('setting:option.GroupRatio.label'), { exact: true }).fill('{"default": 1,');
    await groups.getByRole('button', { name: t('setting:section.save', { name: t('setting:section.groups') }), exact: true }).click();
    await expect(page.getByText(`${t('setting:option.GroupRatio.label')}: ${lang === 'zh' ? '不是合法的 JSON 字符串' : 'Not a valid JSON string'}`)).toBeVisible();

    // System: a check is refused without its configuration. (Turnstile: the sign-in methods are
    // configured by the sign-in spec files running beside this one.)
    await page.goto('/setting?tab=system');
    const turnstile = section(page, 'turnstile');
    await turnstile.getByLabel(t('setting:option.TurnstileCheckEnabled.label'), { exact: true }).click();
    await turnstile.getByRole('button', { name: t('setting:section.save', { name: t('setting:section.turnstile') }), exact: true }).click();
    await expect(page.getByText(new RegExp(`^${t('setting:option.TurnstileCheckEnabled.label')}: .*Turnstile`))).toBeVisible();
    expect((await consoleApi<{ turnstile_check: boolean }>(page, 'GET', '/api/status')).turnstile_check).toBe(false);

    // Other: the footer is rendered (Markdown, sanitised) on every page once saved.
    await page.goto('/setting?tab=other');
    const footer = section(page, 'footer');
    await footer.getByLabel(t('setting:option.Footer.label'), { exact: true }).fill(`**Footer ${run}** <script>window.__xss=1</script>`);
    await footer.getByRole('button', { name: t('setting:section.save', { name: t('setting:section.footer') }), exact: true }).click();
    await expect(page.getByText(t('setting:section.saved')).last()).toBeVisible();
    await page.goto('/about');
    await expect(page.locator('.mg-footer strong')).toHaveText(`Footer ${run}`);
    await expect(page.locator('.mg-footer script')).toHaveCount(0);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();

    await consoleApi(page, 'PUT', '/api/option/', { key: 'Footer', value: '' });
    await consoleApi(page, 'PUT', '/api/option/', { key: 'RetryTimes', value: '0' });
  });
}
