import type { Page } from '@playwright/test';
import { consoleApi, expect, FAKE_KEY, FAKE_UPSTREAM, login, loginAsRoot, newToken, test, tr, trPattern, uniqueName, useLanguage, type Lang } from './fixtures';

/**
 * Issue 35, what a newcomer trips over: one name that the tab follows (7), a base URL copied with
 * its /v1 and a 404 that names the address asked (8), a warning before saving unpriced models (9),
 * and a chat page that neither makes a token behind the user's back nor sends their key to a site
 * unannounced (3). Screens are saved at 1366 and 1920 px under E2E_SHOTS_DIR (default /tmp/shots-i35b).
 */
const SHOTS = process.env.E2E_SHOTS_DIR ?? '/tmp/shots-i35b';
const WIDTHS = [1366, 1920] as const;
const PASSWORD = 'password123';
const CHAT_NAME = 'Newcomer Chat';
const CHAT_APP = 'https://newcomer-chat.e2e.test';
const CHAT_DOWN_NAME = 'Newcomer Chat Down';
const CHAT_DOWN = 'https://newcomer-down.e2e.test';

/** Both widths: nothing runs past the window's right edge, and the screen is saved to look at. */
async function atBothWidths(page: Page, name: string): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 860 });
    await page.waitForTimeout(300);
    const overflow = await page.evaluate(() => (document.scrollingElement as HTMLElement).scrollWidth - window.innerWidth);
    expect(overflow, `${name} at ${width}`).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${SHOTS}/${name}-${width}.png` });
  }
  await page.setViewportSize({ width: 1366, height: 860 });
}

/** Adds this spec's chat clients to the Chats option (keeping other specs' entries); answers their indexes. */
async function chatIndexes(page: Page): Promise<{ up: number; down: number }> {
  const options = await consoleApi<Array<{ key: string; value: string }>>(page, 'GET', '/api/option/');
  const chats = JSON.parse(options.find((o) => o.key === 'Chats')?.value ?? '[]') as Array<Record<string, string>>;
  let changed = false;
  for (const [name, url] of [[CHAT_NAME, `${CHAT_APP}/?key={key}`], [CHAT_DOWN_NAME, `${CHAT_DOWN}/?key={key}`]] as const) {
    if (!chats.some((c) => name in c)) {
      chats.push({ [name]: url });
      changed = true;
    }
  }
  if (changed) await consoleApi(page, 'PUT', '/api/option/', { key: 'Chats', value: JSON.stringify(chats) });
  return { up: chats.findIndex((c) => CHAT_NAME in c), down: chats.findIndex((c) => CHAT_DOWN_NAME in c) };
}

for (const lang of ['zh', 'en'] as Lang[]) {
  const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);

  test(`one name, and the tab follows SystemName (${lang})`, async ({ page }) => {
    await useLanguage(page, lang);
    await page.goto('/');
    await expect(page).toHaveTitle('ModelGate');
    await expect(page.locator('.mg-brand-name')).toHaveText('ModelGate');
    const status = (await (await page.request.get('/api/status')).json()) as { data: { system_name: string } };
    expect(status.data.system_name).toBe('ModelGate');
    // The option as an operator sets it, seen through /api/status (answered here, so no other spec sees the change).
    await page.route('**/api/status', async (route) => {
      const res = await route.fetch();
      const body = (await res.json()) as { data: Record<string, unknown> };
      await route.fulfill({ response: res, json: { ...body, data: { ...body.data, system_name: 'Acme Gate' } } });
    });
    await page.reload();
    await expect(page).toHaveTitle('Acme Gate');
    await expect(page.locator('.mg-brand-name')).toHaveText('Acme Gate');
  });

  test(`channel: Base URL with /v1 warned and still works, 404 names the URL, unpriced models warned (${lang})`, async ({ page }) => {
    test.setTimeout(180_000);
    await useLanguage(page, lang);
    await loginAsRoot(page, lang);
    const run = `nc-${lang}-${Date.now().toString(36)}`;
    const unpriced = `${run}-unpriced`;

    await page.goto('/channel/add');
    const drawer = page.getByRole('dialog', { name: t('channel:drawer.createTitle') });
    const baseUrl = drawer.getByLabel(t('channel:field.baseUrl.proxy'), { exact: true });
    await expect(baseUrl).toBeVisible();
    expect(t('channel:field.baseUrl.proxy')).toBe(lang === 'zh' ? '接口地址' : 'Base URL');
    await drawer.getByLabel(t('channel:field.name'), { exact: true }).fill(run);
    await drawer.getByLabel(t('channel:field.key'), { exact: true }).fill(FAKE_KEY);

    // 8. A path that does not exist: the model fetch says which URL answered 404.
    await baseUrl.fill(`${FAKE_UPSTREAM}/wrong`);
    await drawer.getByRole('button', { name: t('channel:drawer.fetchModels'), exact: true }).click();
    await expect(page.getByText(`HTTP 404 ${FAKE_UPSTREAM}/wrong/v1/models`)).toBeVisible();

    // 8. The base as vendors document it, with /v1: warned while typing, and it works.
    await baseUrl.fill(`${FAKE_UPSTREAM}/v1`);
    await expect(drawer.getByText(t('channel:field.baseUrlHint.v1Suffix'))).toBeVisible();
    await drawer.getByRole('button', { name: t('channel:drawer.fetchModels'), exact: true }).click();
    await expect(page.getByText(trPattern(lang, 'channel:drawer.fetchedModels'))).toBeVisible();
    await atBothWidths(page, `channel-base-url-v1-${lang}`);

    // 9. A model without a price: warned on save, with the way to price it; going back keeps the form.
    await drawer.getByLabel(t('channel:field.customModels'), { exact: true }).fill(unpriced);
    await drawer.getByRole('button', { name: t('channel:drawer.addCustom'), exact: true }).click();
    await drawer.getByRole('button', { name: t('common:action.submit'), exact: true }).click();
    const warning = page.getByTestId('unpriced-models');
    await expect(warning).toContainText(unpriced);
    await expect(page.locator('.ant-modal-confirm-title')).toHaveText(t('channel:unpriced.title'));
    await expect(warning.getByRole('link', { name: t('channel:unpriced.linkRatios') })).toHaveAttribute('href', '/setting?tab=operation');
    await atBothWidths(page, `channel-unpriced-${lang}`);
    await page.getByRole('button', { name: t('channel:unpriced.back'), exact: true }).click();
    await expect(warning).toBeHidden();
    await expect(drawer).toBeVisible();
    await drawer.getByRole('button', { name: t('common:action.submit'), exact: true }).click();
    await page.getByRole('button', { name: t('channel:unpriced.saveAnyway'), exact: true }).click();
    await expect(page.getByText(t('channel:drawer.created'))).toBeVisible();

    // The saved /v1 base reaches the upstream's /v1/… once: the channel test passes.
    const found = await consoleApi<Array<{ id: number; name: string }>>(page, 'GET', `/api/channel/search?keyword=${run}`);
    const id = found.find((c) => c.name === run)!.id;
    // consoleApi throws on success=false: the test through the saved base passes.
    await consoleApi(page, 'GET', `/api/channel/test/${id}?model=gpt-4o-mini`);
    await consoleApi(page, 'DELETE', `/api/channel/${id}`);
  });

  test(`quota inputs: a number too long to be exact is refused in words (${lang})`, async ({ page }) => {
    await useLanguage(page, lang);
    const username = uniqueName('nq');
    const reg = await page.request.post('/api/user/register', { data: { username, password: PASSWORD, password2: PASSWORD } });
    expect(((await reg.json()) as { success: boolean }).success).toBe(true);
    await login(page, lang, username, PASSWORD);
    await page.getByRole('button', { name: t('token:add'), exact: true }).click();
    const drawer = page.getByRole('dialog', { name: t('token:drawer.createTitle') });
    const quota = drawer.getByLabel(t('token:field.quota'), { exact: true });
    await quota.fill('99999999999999999999');
    const refused = t('common:quotaInput.range', { min: 0, max: Number.MAX_SAFE_INTEGER });
    await expect(drawer.getByText(refused)).toBeVisible();
    await atBothWidths(page, `token-quota-range-${lang}`);
    // Nothing rounded is sent: the form stays open with the message until the number fits.
    await drawer.getByLabel(t('token:field.name')).fill('big');
    await drawer.getByRole('button', { name: t('common:action.submit'), exact: true }).click();
    await expect(drawer.getByText(refused)).toBeVisible();
    await quota.fill(String(Number.MAX_SAFE_INTEGER));
    await expect(drawer.getByText(refused)).toBeHidden();
    await drawer.getByRole('button', { name: t('common:action.submit'), exact: true }).click();
    await expect(page.getByText(t('token:drawer.created'))).toBeVisible();
    const [token] = await consoleApi<Array<{ remain_quota: number }>>(page, 'GET', '/api/token/?p=0&size=100');
    expect(token!.remain_quota).toBe(Number.MAX_SAFE_INTEGER);
  });

  test(`chat: no silent token, the site named before the key goes, a site that does not load said (${lang})`, async ({ page }) => {
    test.setTimeout(180_000);
    // The console's frame only: the chat client's frame has no storage to set a language in.
    await page.addInitScript((l) => window !== window.top || localStorage.getItem('i18nextLng') || localStorage.setItem('i18nextLng', l), lang);
    await page.route(`${CHAT_APP}/**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>chat</title><p>newcomer chat app</p>' }));
    // A site that never answers: the frame would stay a grey box.
    await page.route(`${CHAT_DOWN}/**`, () => undefined);
    await loginAsRoot(page, lang);
    const chats = await chatIndexes(page);
    await page.context().clearCookies();
    await page.evaluate(() => localStorage.removeItem('user'));
    const username = uniqueName('nc');
    const reg = await page.request.post('/api/user/register', { data: { username, password: PASSWORD, password2: PASSWORD } });
    expect(((await reg.json()) as { success: boolean }).success).toBe(true);
    await login(page, lang, username, PASSWORD);

    // 3. No token: told so and sent to /token; none was made behind the user's back.
    await page.goto(`/chat/${chats.up}`);
    await expect(page.getByText(t('chat:noToken'))).toBeVisible();
    await atBothWidths(page, `chat-no-token-${lang}`);
    await expect(page).toHaveURL(/\/token$/, { timeout: 10_000 });
    expect(await consoleApi<unknown[]>(page, 'GET', '/api/token/?p=0&size=100')).toEqual([]);

    // 3. With a token: the site and the token are named, nothing is framed before the user agrees.
    await newToken(page, `${username}-t`);
    await page.goto(`/chat/${chats.up}`);
    const consent = page.getByTestId('chat-consent');
    await expect(consent).toContainText(new URL(CHAT_APP).host);
    await expect(consent).toContainText(`${username}-t`);
    await expect(page.getByTestId('chat-frame')).toHaveCount(0);
    await atBothWidths(page, `chat-consent-${lang}`);
    await consent.getByRole('button', { name: t('chat:consent.confirm', { site: new URL(CHAT_APP).host }) }).click();
    await expect(page.frameLocator('[data-testid=chat-frame]').locator('body')).toContainText('newcomer chat app');
    await expect(page.getByTestId('chat-bar')).toContainText(new URL(CHAT_APP).host);
    await atBothWidths(page, `chat-frame-${lang}`);
    // Agreed once per site: not asked again for it.
    await page.reload();
    await expect(page.getByTestId('chat-frame')).toBeVisible();

    // 3. Another site is asked about again; one that never loads is said so, with a way out.
    await page.goto(`/chat/${chats.down}`);
    await page.getByTestId('chat-consent').getByRole('button').click();
    await expect(page.getByText(t('chat:loadFailed', { site: new URL(CHAT_DOWN).host }))).toBeVisible({ timeout: 25_000 });
    await atBothWidths(page, `chat-load-failed-${lang}`);
  });
}
