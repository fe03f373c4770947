import type { Page } from '@playwright/test';
import { startFakeMj, startFakeSuno, type FakeMj, type FakeSuno } from '@modelgate/testkit';
import { consoleApi, expect, loginAsRoot, test, tr, type Lang } from './fixtures';

/**
 * The drawing (`/midjourney`) and async task (`/task`) screens with real tasks (issue 18): root
 * submits through `/mj` and `/suno` against testkit fakes, the server's poller finishes them, and
 * the lists show them with the admin columns, image preview, fail reason and status. `E2E_SHOTS=<dir>`
 * also saves both screens at 1366 px.
 */
const shots = process.env.E2E_SHOTS;

async function apiKey(page: Page, name: string): Promise<string> {
  await consoleApi(page, 'POST', '/api/token/', { name, remain_quota: 0, expired_time: -1, unlimited_quota: true, model_limits_enabled: false, model_limits: '', allow_ips: '', group: '' });
  const [token] = await consoleApi<{ key: string }[]>(page, 'GET', `/api/token/search?keyword=${name}&token=`);
  return `sk-${token!.key}`;
}

async function settled(page: Page, path: string, key: string, field: string, done: (v: unknown) => boolean): Promise<void> {
  await expect
    .poll(async () => {
      const res = await page.request.get(path, { headers: { authorization: `Bearer ${key}` } });
      const body = (await res.json()) as Record<string, unknown>;
      const data = (body.data ?? body) as Record<string, unknown>;
      return done(data[field]);
    }, { timeout: 20_000 })
    .toBe(true);
}

for (const lang of ['zh', 'en'] as Lang[]) {
  test(`drawing and async task lists show polled tasks with their admin columns (${lang})`, async ({ page, consoleGuard }) => {
    const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);
    let mj: FakeMj | undefined;
    let suno: FakeSuno | undefined;
    const tag = `${lang}${Date.now().toString(36)}`;
    try {
      mj = await startFakeMj({ secret: 'e2e-mj', stepMs: 300 });
      suno = await startFakeSuno({ secret: 'e2e-suno', stepMs: 300 });
      await page.addInitScript((l) => localStorage.getItem('i18nextLng') || localStorage.setItem('i18nextLng', l), lang);
      await loginAsRoot(page, lang);
      await consoleApi(page, 'POST', '/api/channel/', { type: 5, name: `mj-${tag}`, key: 'e2e-mj', base_url: mj.url, models: 'mj_imagine,mj_upscale', groups: ['default'], group: 'default' });
      await consoleApi(page, 'POST', '/api/channel/', { type: 36, name: `suno-${tag}`, key: 'e2e-suno', base_url: suno.url, models: 'suno_music,suno_lyrics', groups: ['default'], group: 'default' });
      // The fake's images are on loopback: the gateway's image forwarding may reach it.
      await consoleApi(page, 'PUT', '/api/option/', { key: 'OutboundAllowedRanges', value: '127.0.0.1/32' });
      const key = await apiKey(page, `task-${tag}`);

      const submit = async (path: string, body: unknown) => {
        const res = await page.request.post(path, { headers: { 'mj-api-secret': key, authorization: `Bearer ${key}` }, data: body });
        expect(res.status(), await res.text()).toBe(200);
        return (await res.json()) as { result?: string; data?: string };
      };
      const good = (await submit('/mj/submit/imagine', { prompt: `a lighthouse at dusk ${tag}` })).result!;
      const bad = (await submit('/mj/submit/imagine', { prompt: `explode ${tag}` })).result!;
      const music = (await submit('/suno/submit/music', { prompt: '', gpt_description_prompt: `calm piano ${tag}` })).data!;
      // The admin list also shows tasks of earlier tests, whose fakes (and images) are gone.
      consoleGuard.allow((m) => m.text.includes('502') && m.url.includes('/mj/image/') && !m.url.includes(good));
      await settled(page, `/mj/task/${good}/fetch`, key, 'status', (s) => s === 'SUCCESS');
      await settled(page, `/mj/task/${bad}/fetch`, key, 'status', (s) => s === 'FAILURE');
      await settled(page, `/suno/fetch/${music}`, key, 'status', (s) => s === 'SUCCESS');
      // Drawing: reached from the side nav (enable_drawing is on by default).
      await page.getByTestId('side-nav').getByRole('link', { name: t('nav.drawing'), exact: true }).click();
      await expect(page).toHaveURL(/\/midjourney$/);
      await expect(page.getByRole('columnheader', { name: t('task:column.channel') })).toBeVisible();
      await expect(page.getByRole('columnheader', { name: t('task:column.user') })).toBeVisible();
      const goodRow = page.locator('tr.ant-table-row').filter({ hasText: good });
      await expect(goodRow.getByText(t('task:status.SUCCESS'), { exact: true })).toBeVisible();
      const thumb = goodRow.locator('img');
      await expect(thumb).toHaveAttribute('src', `/mj/image/${good}`);
      await expect.poll(() => thumb.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
      const badRow = page.locator('tr.ant-table-row').filter({ hasText: bad });
      await expect(badRow.getByText(t('task:status.FAILURE'), { exact: true })).toBeVisible();
      await expect(badRow.getByText(/could not be generated/)).toBeVisible();
      await goodRow.locator('.mg-task-prompt').first().getByRole('button', { name: t('task:copy') }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`a lighthouse at dusk ${tag}`);
      if (shots) {
        await page.waitForTimeout(300);
        await page.screenshot({ path: `${shots}/midjourney-${lang}.png`, fullPage: true });
      }
      // Async tasks.
      await page.getByTestId('side-nav').getByRole('link', { name: t('nav.task'), exact: true }).click();
      await expect(page).toHaveURL(/\/task$/);
      const musicRow = page.locator('tr.ant-table-row').filter({ hasText: music });
      await expect(musicRow.getByText(t('task:action.MUSIC'), { exact: true })).toBeVisible();
      await expect(musicRow.getByText(t('task:status.SUCCESS'), { exact: true })).toBeVisible();
      await expect(page.getByRole('columnheader', { name: t('task:column.channel') })).toBeVisible();
      if (shots) {
        await page.waitForTimeout(300);
        await page.screenshot({ path: `${shots}/task-${lang}.png`, fullPage: true });
      }
    } finally {
      // The next language's test must not be routed to this test's fakes, which stop here.
      const mine = await consoleApi<Array<{ id: number }>>(page, 'GET', `/api/channel/search?keyword=${tag}`).catch(() => []);
      for (const ch of mine) await consoleApi(page, 'DELETE', `/api/channel/${ch.id}`).catch(() => undefined);
      await mj?.close();
      await suno?.close();
    }
  });
}
