import type { Page } from '@playwright/test';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { consoleApi, expect, login, loginAsRoot, setModelEntry, test, tr, uniqueName, useLanguage, type Lang } from './fixtures';

/**
 * Issue 22 item 5: stored XSS payloads in every place the console renders text someone else wrote
 * — the admin's site content (notice, home page, about, footer), a model's Markdown answer in the
 * playground, and the usage log (token names, redemption-code names) — never run in a real browser:
 * no dialog opens, no payload sets `window.__xss`, no `javascript:`/`data:` link survives, and the
 * benign part of the same content still renders.
 */
const lang: Lang = 'en';
/** Where the console renders the admin's content: the notice, home and about bodies, and the footer. */
const SITE = '.mg-markdown, .mg-footer-custom';
/** The admin's content may style itself (home pages are designed); a model's answer may not. */
const ADMIN_MAY = ['style'];
/** The log table's own controls (expand buttons, selection boxes). */
const TABLE_MAY = ['button', 'input'];
const PASSWORD = 'password123';

/** Every payload sets `window.__xss` to its own name (and most also open a dialog). */
const PAYLOADS = [
  `<img src=x onerror="window.__xss='img';alert('img')">`,
  `<svg onload="window.__xss='svg';alert('svg')"><circle r="1"/></svg>`,
  `<svg><script>window.__xss='svg-script'</script></svg>`,
  `<script>window.__xss='script';alert('script')</script>`,
  `<iframe src="javascript:parent.__xss='iframe-js'"></iframe>`,
  `<iframe srcdoc="<script>parent.__xss='srcdoc'</script>"></iframe>`,
  `<a href="javascript:window.__xss='js-link';alert('js-link')">js link</a>`,
  `<a href="  JaVaScRiPt:window.__xss='js-link-case'">case link</a>`,
  `[md link](javascript:window.__xss='md-link')`,
  `[data link](data:text/html;base64,PHNjcmlwdD5wYXJlbnQuX194c3M9J2RhdGEnPC9zY3JpcHQ+)`,
  `![md image](x" onerror="window.__xss='md-img')`,
  `"><img src=x onerror="window.__xss='breakout'">`,
  `'><svg onload="window.__xss='breakout2'">`,
  `<details open ontoggle="window.__xss='details'"><summary>d</summary></details>`,
  `<input autofocus onfocus="window.__xss='focus'">`,
  `<object data="data:text/html,<script>parent.__xss='object'</script>"></object>`,
  `<embed src="data:text/html,<script>parent.__xss='embed'</script>">`,
  `<form action="javascript:window.__xss='form'"><button>go</button></form>`,
  `<meta http-equiv="refresh" content="0;url=javascript:window.__xss='meta'">`,
  `<style>body{background:url("javascript:window.__xss='css'")}</style>`,
  `<math><mtext><table><mglyph><style><img src=x onerror="window.__xss='mxss'">`,
];

/** Benign Markdown beside the payloads, proving the content still renders (and an image probe that fails to load). */
function content(place: string): string {
  return [`## Probe ${place}`, '', `**bold-${place}** and [safe link](https://example.com/${place})`, '', `<img alt="xss-probe" src="/xss-probe-${place}.png">`, '', ...PAYLOADS.map((p) => `${p}\n`)].join('\n');
}

/**
 * Watches a page for any sign of a payload running. The page is served without its
 * Content-Security-Policy, so what is proven is the sanitiser alone, not the policy behind it.
 */
async function watch(page: Page): Promise<{ dialogs: string[] }> {
  await page.route('**/*', async (route) => {
    const response = await route.fetch();
    const headers = { ...response.headers() };
    delete headers['content-security-policy'];
    await route.fulfill({ response, headers });
  });
  const seen = { dialogs: [] as string[] };
  page.on('dialog', (d) => {
    seen.dialogs.push(d.message());
    void d.dismiss();
  });
  return seen;
}

/** Waits until the probe images have failed to load (an unsanitised onerror would have fired by then), then checks. */
async function expectInert(page: Page, seen: { dialogs: string[] }, area: string, allowed: readonly string[] = []): Promise<void> {
  await page.waitForFunction(() => Array.from(document.querySelectorAll<HTMLImageElement>('img')).every((i) => i.complete));
  // Focus, toggle and load handlers run on the next tasks.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 50))));
  const links = await page.locator(`:is(${area}) a[href]`).evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
  expect(links.filter((h) => /^\s*(javascript|data|vbscript):/i.test(h))).toEqual([]);
  for (const tag of ['script', 'iframe', 'object', 'embed', 'form', 'input', 'button', 'meta', 'style'].filter((x) => !allowed.includes(x))) {
    await expect(page.locator(`:is(${area}) ${tag}`)).toHaveCount(0);
  }
  expect(await page.evaluate(() => Array.from(document.querySelectorAll('*')).filter((el) => Array.from(el.attributes).some((a) => a.name.startsWith('on'))).length)).toBe(0);
  expect(await page.evaluate(() => (window as unknown as { __xss?: string }).__xss)).toBeUndefined();
  expect(seen.dialogs).toEqual([]);
}

/** An OpenAI-compatible upstream whose every answer is `answer` (the playground renders it as Markdown). */
async function startAnswering(answer: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const stream = (JSON.parse(raw || '{}') as { stream?: boolean }).stream === true;
      const usage = { prompt_tokens: 5, completion_tokens: 20, total_tokens: 25 };
      if (!stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }], usage }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: object, finish: string | null, extra: object = {}) => `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
      res.write(chunk({ role: 'assistant', content: answer }, null));
      res.write(chunk({}, 'stop', { usage }));
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
}

test('site content (notice, home page, about, footer) stays inert with stored payloads', async ({ page, browser, consoleGuard }) => {
  consoleGuard.allow((m) => /404|Failed to load resource/.test(m.text));
  await useLanguage(page, lang);
  await loginAsRoot(page, lang);
  const places = { Notice: 'notice', HomePageContent: 'home', About: 'about', Footer: 'footer' } as const;
  try {
    for (const [key, place] of Object.entries(places)) await consoleApi(page, 'PUT', '/api/option/', { key, value: content(place) });
    const visitor = await browser.newPage();
    const seen = await watch(visitor);
    visitor.on('console', (m) => m.type() === 'error' && !/404|Failed to load resource/.test(m.text()) && seen.dialogs.push(`console: ${m.text()}`));
    await useLanguage(visitor, lang);

    await visitor.goto('/');
    const notice = visitor.getByRole('dialog', { name: tr(lang, 'home:notice') });
    await expect(notice.getByRole('heading', { name: 'Probe notice' })).toBeVisible();
    await expect(notice.locator('strong')).toHaveText('bold-notice');
    await expect(notice.getByRole('link', { name: 'safe link' })).toHaveAttribute('href', 'https://example.com/notice');
    await expect(visitor.getByRole('heading', { name: 'Probe home' })).toBeVisible();
    await expect(visitor.locator('.mg-footer strong')).toHaveText('bold-footer');
    await expectInert(visitor, seen, SITE, ADMIN_MAY);
    // Clicking what is left of the links and buttons in the content runs nothing either.
    for (const link of await notice.getByRole('link').all()) if (!(await link.getAttribute('href'))?.startsWith('https:')) await link.click();
    await expectInert(visitor, seen, SITE, ADMIN_MAY);

    await visitor.goto('/about');
    await expect(visitor.getByRole('heading', { name: 'Probe about' })).toBeVisible();
    await expect(visitor.locator('strong').filter({ hasText: 'bold-about' })).toBeVisible();
    await expect(visitor.locator('.mg-footer').getByRole('link', { name: 'safe link' })).toHaveAttribute('href', 'https://example.com/footer');
    await expectInert(visitor, seen, SITE, ADMIN_MAY);
    await visitor.close();
  } finally {
    for (const key of Object.keys(places)) await consoleApi(page, 'PUT', '/api/option/', { key, value: '' });
  }
});

test('a model’s Markdown answer in the playground and names in the usage log stay inert', async ({ page, browser, consoleGuard }) => {
  test.setTimeout(180_000);
  consoleGuard.allow((m) => /404|Failed to load resource/.test(m.text));
  const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);
  const upstream = await startAnswering(content('answer'));
  try {
    const model = `xss-${Date.now().toString(36)}`;
    await useLanguage(page, lang);
    await loginAsRoot(page, lang);
    await consoleApi(page, 'POST', '/api/channel/', { type: 1, name: model, key: 'sk-any', base_url: upstream.url, models: model, groups: ['default'], group: 'default' });
    await setModelEntry(page, 'ModelRatio', model, 1);
    // A code whose name is a payload (names are at most 20 characters): the top-up log row shows it.
    const [code] = await consoleApi<string[]>(page, 'POST', '/api/redemption/', { name: '<svg onload=alert()>', quota: 1_000_000, count: 1 });

    const user = await browser.newPage();
    const seen = await watch(user);
    await useLanguage(user, lang);
    const username = uniqueName('xss');
    const reg = await user.request.post('/api/user/register', { data: { username, password: PASSWORD, password2: PASSWORD } });
    expect(((await reg.json()) as { success: boolean }).success).toBe(true);
    await login(user, lang, username, PASSWORD);
    await consoleApi(user, 'POST', '/api/user/topup', { key: code });
    // A token whose name is a payload (at most 30 characters), used once: the consume row shows it.
    await consoleApi(user, 'POST', '/api/token/', { name: `<img src=x onerror=alert(1)>`, unlimited_quota: true });
    const [token] = await consoleApi<Array<{ key: string }>>(user, 'GET', '/api/token/?p=0&size=10');
    const relayed = await user.request.post('/v1/chat/completions', { headers: { authorization: `Bearer sk-${token!.key}` }, data: { model, messages: [{ role: 'user', content: 'hi' }] } });
    expect(relayed.status()).toBe(200);

    await user.goto('/playground');
    await user.getByRole('combobox', { name: t('playground:settings.model') }).click();
    await user.keyboard.type(model);
    await user.locator('.ant-select-item-option').filter({ hasText: model }).click();
    const input = user.getByLabel(t('playground:composer.label'));
    await input.fill(`<img src=x onerror="window.__xss='prompt'"> [p](javascript:alert('prompt'))`);
    await input.press('Enter');
    const answer = user.getByTestId('pg-message-assistant').first();
    await expect(answer).toHaveAttribute('data-status', 'complete', { timeout: 20_000 });
    await expect(answer.getByRole('heading', { name: 'Probe answer' })).toBeVisible();
    await expect(answer.locator('strong')).toHaveText('bold-answer');
    await expect(answer.getByRole('link', { name: 'safe link' })).toHaveAttribute('href', 'https://example.com/answer');
    await expectInert(user, seen, '.mg-pg-answer');
    // Kept in localStorage and rendered again after a reload: still inert.
    await user.reload();
    await expect(user.getByTestId('pg-message-assistant').first().getByRole('heading', { name: 'Probe answer' })).toBeVisible();
    await expectInert(user, seen, '.mg-pg-answer');

    // The user's log: the token's name and the code's name shown as text, the consume row's detail expanded.
    await user.goto('/log');
    const rows = user.locator('.ant-table-tbody tr.ant-table-row');
    await expect(rows.filter({ hasText: '<img src=x onerror=alert(1)>' }).first()).toBeVisible();
    await expect(rows.filter({ hasText: '<svg onload=alert()>' }).first()).toBeVisible();
    await rows.filter({ hasText: '<img src=x onerror=alert(1)>' }).first().locator('.ant-table-row-expand-icon').click();
    await expect(user.locator('.ant-table-expanded-row').first()).toBeVisible();
    await expectInert(user, seen, '.ant-table', TABLE_MAY);
    await user.close();

    // Root's view of every row (with user names) is as inert.
    const rootSeen = await watch(page);
    await page.goto('/log');
    await expect(page.locator('.ant-table-tbody tr.ant-table-row').filter({ hasText: username }).first()).toBeVisible();
    await expectInert(page, rootSeen, '.ant-table', TABLE_MAY);
  } finally {
    await upstream.close();
  }
});
