import type { Page } from '@playwright/test';
import { consoleApi, expect, FAKE_KEY, FAKE_UPSTREAM, loginAsRoot, newToken, setModelEntry, test, tr, uniqueName, useLanguage, type Lang } from './fixtures';
import { ownServer, pageOn } from './own-server';

const SHOTS = process.env.E2E_SHOTS_DIR ?? '/tmp/shots-i35a';
const WIDTHS = [1366, 1920] as const;
/** Every list screen; the top-up orders are a tab of the wallet. */
const LIST_SCREENS = ['/channel', '/token', '/log', '/user', '/redemption', '/task', '/midjourney', '/topup#orders', '/audit'] as const;

async function openList(page: Page, lang: Lang, screen: string): Promise<void> {
  const [where, tab] = screen.split('#');
  await page.goto(where!);
  if (tab) await page.getByRole('tab', { name: tr(lang, `topup:tabs.${tab}`) }).click();
  await expect(page.locator('.ant-table-wrapper').first()).toBeVisible();
  await expect(page.locator('.ant-spin-spinning')).toHaveCount(0);
}

/** Rows on every list screen, so each table shows its real width (set-up through the API). */
async function seedRows(page: Page, run: string): Promise<void> {
  const model = `${run}-model`;
  await consoleApi(page, 'POST', '/api/channel/', {
    type: 1, name: `${run}-channel-with-a-long-name`, key: FAKE_KEY, base_url: FAKE_UPSTREAM, models: model, groups: ['default'], group: 'default',
  });
  await setModelEntry(page, 'ModelRatio', model, 0.075);
  const key = await newToken(page, `${run}-token`);
  const res = await page.request.post('/v1/chat/completions', {
    headers: { Authorization: `Bearer ${key}` },
    data: { model, messages: [{ role: 'user', content: 'a row for the log table' }] },
  });
  expect(res.status()).toBe(200);
  await consoleApi(page, 'POST', '/api/redemption/', { name: `${run}-codes`, quota: 1000, count: 1 });
}

/**
 * A table fits its screen or scrolls visibly: nothing runs past the window's right edge, and a
 * table wider than its box shows antd's sticky scroll bar inside the window (headless Chromium,
 * like macOS, draws no native scroll bar, so a cut-off column would go unnoticed).
 */
async function expectTablesFit(page: Page, where: string): Promise<void> {
  const report = await page.evaluate(() => {
    const doc = document.scrollingElement as HTMLElement;
    const wrappers = Array.from(document.querySelectorAll('.ant-table-wrapper')) as HTMLElement[];
    return {
      pageOverflow: doc.scrollWidth - window.innerWidth,
      width: window.innerWidth,
      tables: wrappers
        .filter((w) => w.offsetParent !== null)
        .map((w) => {
          const content = (w.querySelector('.ant-table-content, .ant-table-body') as HTMLElement | null) ?? w;
          const bar = (w.querySelector('.ant-table-sticky-scroll') as HTMLElement | null)?.getBoundingClientRect();
          return {
            right: Math.round(w.getBoundingClientRect().right),
            overflow: content.scrollWidth - content.clientWidth,
            barVisible: !!bar && bar.height > 0 && bar.top < window.innerHeight && bar.bottom > 0,
          };
        }),
    };
  });
  expect.soft(report.pageOverflow, `${where}: the page itself scrolls sideways`).toBeLessThanOrEqual(0);
  for (const table of report.tables) {
    expect.soft(table.right, `${where}: a table runs past the window`).toBeLessThanOrEqual(report.width);
    if (table.overflow > 1) expect.soft(table.barVisible, `${where}: a table wider than its box shows no scroll bar`).toBe(true);
  }
}


for (const lang of ['zh', 'en'] as Lang[]) {
  test.describe(`newcomer console (${lang})`, () => {
    test('every list screen fits or scrolls visibly at 1366 and 1920', async ({ page }) => {
      // 18 screens, each loaded, measured and saved: 1.2 min alone, 2.9–3.1 min beside the other worker on CI.
      test.setTimeout(360_000);
      const run = `nc${lang}${Date.now().toString(36).slice(-5)}`;
      await useLanguage(page, lang);
      await loginAsRoot(page, lang);
      await seedRows(page, run);
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 860 });
        for (const screen of LIST_SCREENS) {
          await openList(page, lang, screen);
          await page.screenshot({ path: `${SHOTS}/${screen.slice(1).replace('#', '-')}-${width}-${lang}.png` });
          await expectTablesFit(page, `${screen} at ${width} (${lang})`);
        }
      }
    });

    test('a signed-in console never meets the anonymous limit; a limited list says when to retry', async ({ browser }) => {
      test.setTimeout(240_000);
      // Anonymous budget far below one walk through the screens; the per-user one is what stops root here.
      const srv = await ownServer({
        GLOBAL_API_RATE_LIMIT: '12',
        GLOBAL_API_USER_RATE_LIMIT: '400',
        GLOBAL_WEB_RATE_LIMIT: '40',
      });
      try {
        const page = await pageOn(browser, srv.url, lang);
        const limited: string[] = [];
        page.on('response', (r) => {
          if (r.status() === 429) limited.push(r.url());
        });
        await loginAsRoot(page, lang);
        // One walk makes several times the anonymous budget of API calls (the first test walks both widths).
        for (const screen of LIST_SCREENS) await openList(page, lang, screen);
        expect(limited, 'a signed-in walk through every list screen met a rate limit').toEqual([]);

        // No channel yet: the playground tells root what to do instead of "contact the administrator".
        await page.goto('/playground');
        await expect(page.getByText(tr(lang, 'playground:chat.noModelAdmin')).first()).toBeVisible();
        await expect(page.getByRole('link', { name: tr(lang, 'playground:chat.openChannels') })).toHaveAttribute('href', '/channel');
        await page.screenshot({ path: `${SHOTS}/playground-admin-${lang}.png` });

        // Spend the rest of root's own budget as a runaway script would, then open a list.
        const userId = await page.evaluate(() => (JSON.parse(localStorage.getItem('user') ?? '{}') as { id?: number }).id ?? -1);
        await expect(async () => {
          const r = await page.request.get('/api/user/self', { headers: { 'New-Api-User': String(userId) } });
          expect(r.status()).toBe(429);
        }).toPass({ timeout: 60_000, intervals: [0] });
        for (const width of WIDTHS) {
          await page.setViewportSize({ width, height: 860 });
          await page.getByTestId('side-nav').getByRole('link', { name: tr(lang, 'nav.channel'), exact: true }).click();
          const notice = page.getByTestId('list-rate-limited');
          await expect(notice).toBeVisible();
          await expect(notice).toHaveText(new RegExp(tr(lang, 'error.tooManyRequestsRetry', { seconds: '\\d+' }).replace(/[()]/g, '\\$&')));
          await expect(page.getByText(tr(lang, 'channel:empty'))).toHaveCount(0);
          await page.screenshot({ path: `${SHOTS}/limited-list-${width}-${lang}.png` });
          await page.getByTestId('side-nav').getByRole('link', { name: tr(lang, 'nav.token'), exact: true }).click();
          await expect(page.getByTestId('list-rate-limited')).toBeVisible();
        }
        await page.context().close();
      } finally {
        srv.child.kill();
      }
    });

    test('past the page-load limit the browser gets an HTML page that says when to retry', async ({ browser }) => {
      const srv = await ownServer({ GLOBAL_WEB_RATE_LIMIT: '2' });
      try {
        const page = await pageOn(browser, srv.url, lang);
        await page.goto('/login');
        await page.goto('/login');
        const res = await page.goto('/login');
        expect(res?.status()).toBe(429);
        expect(res?.headers()['content-type']).toMatch(/^text\/html/);
        const text = lang === 'zh' ? /请求过于频繁，请 \d+ 秒后再试/ : /Too many requests, retry in \d+ s/;
        await expect(page.locator('#limited')).toHaveText(text);
        await page.screenshot({ path: `${SHOTS}/limited-page-${lang}.png` });
        await page.context().close();
      } finally {
        srv.child.kill();
      }
    });

    test('sign-up refuses a common password and a long username with a clear message', async ({ browser }) => {
      const srv = await ownServer({});
      try {
        const page = await pageOn(browser, srv.url, lang);
        await page.goto('/register');
        const username = page.getByLabel(tr(lang, 'auth:register.username'));
        await username.fill('thirteen_char');
        // Kept whole (the count turns red), refused on submit: never silently cut to 12.
        await expect(username).toHaveValue('thirteen_char');
        await page.getByLabel(tr(lang, 'auth:register.password'), { exact: true }).fill('12345678');
        await page.getByLabel(tr(lang, 'auth:register.password2')).fill('12345678');
        await page.getByRole('button', { name: tr(lang, 'auth:register.submit'), exact: true }).click();
        await expect(page.getByText(tr(lang, 'auth:register.problem.usernameTooLong'))).toBeVisible();
        await username.fill('newcomer1');
        await page.getByRole('button', { name: tr(lang, 'auth:register.submit'), exact: true }).click();
        const refusal = lang === 'zh' ? /密码太常见或有规律/ : /This password is too common or predictable/;
        const toast = page.locator('.ant-message-notice').filter({ hasText: refusal });
        await expect(toast).toBeVisible();
        // Below the header, not over it.
        await expect.poll(async () => (await toast.boundingBox())?.y ?? 0).toBeGreaterThanOrEqual(56);
        await page.screenshot({ path: `${SHOTS}/weak-password-${lang}.png` });
        await page.context().close();
      } finally {
        srv.child.kill();
      }
    });

    test('a double click creates one token, one code batch and one account', async ({ page, browser }) => {
      test.setTimeout(180_000);
      const run = `dc${lang}${Date.now().toString(36).slice(-5)}`;
      await useLanguage(page, lang);
      await loginAsRoot(page, lang);
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 860 });
        const tokenName = `${run}-t${width}`;
        await page.goto('/token');
        await page.getByRole('button', { name: tr(lang, 'token:add'), exact: true }).click();
        const drawer = page.getByRole('dialog', { name: tr(lang, 'token:drawer.createTitle') });
        await drawer.getByLabel(tr(lang, 'token:field.name')).fill(tokenName);
        await drawer.getByRole('button', { name: tr(lang, 'common:action.submit'), exact: true }).dblclick();
        await expect(page.getByText(tr(lang, 'token:drawer.created'))).toBeVisible();
        await expect(page.getByText(tokenName, { exact: true })).toHaveCount(1);
        expect(await consoleApi<unknown[]>(page, 'GET', `/api/token/search?keyword=${tokenName}&token=`)).toHaveLength(1);

        const codeName = `${run}-c${width}`;
        await page.goto('/redemption');
        await page.getByRole('button', { name: tr(lang, 'redemption:add'), exact: true }).click();
        const codes = page.getByRole('dialog', { name: tr(lang, 'redemption:drawer.createTitle') });
        await codes.getByLabel(tr(lang, 'redemption:field.name')).fill(codeName);
        await codes.getByLabel(tr(lang, 'redemption:field.quota')).fill('1000');
        await codes.getByRole('button', { name: tr(lang, 'common:action.submit'), exact: true }).dblclick();
        // "1 code created", not "1 codes created".
        await expect(page.getByRole('dialog', { name: tr(lang, 'redemption:created.title', { count: 1 }) })).toBeVisible();
        if (lang === 'en') await expect(page.getByText('1 code created', { exact: true })).toBeVisible();
        const found = await consoleApi<{ items: unknown[] }>(page, 'GET', `/api/redemption/search?keyword=${codeName}`);
        expect(found.items).toHaveLength(1);
        await page.screenshot({ path: `${SHOTS}/codes-created-${width}-${lang}.png` });
      }

      // Sign-up: one account, one "success", never "already exists" beside it.
      const visitor = await pageOn(browser, new URL(page.url()).origin, lang);
      const username = uniqueName('dc');
      await visitor.goto('/register');
      await visitor.getByLabel(tr(lang, 'auth:register.username')).fill(username);
      await visitor.getByLabel(tr(lang, 'auth:register.password'), { exact: true }).fill('Quiet-Harbor-42');
      await visitor.getByLabel(tr(lang, 'auth:register.password2')).fill('Quiet-Harbor-42');
      await visitor.getByRole('button', { name: tr(lang, 'auth:register.submit'), exact: true }).dblclick();
      await expect(visitor.getByText(tr(lang, 'auth:register.success'))).toBeVisible();
      await expect(visitor).toHaveURL(/\/login$/);
      await expect(visitor.locator('.ant-message-error')).toHaveCount(0);
      await visitor.context().close();
    });
  });
}
