import { startFakeSora, type FakeSora } from '@modelgate/testkit';
import { consoleApi, expect, loginAsRoot, test, tr, trPattern, type Lang } from './fixtures';

/**
 * Video generation from the console (issue 34): root submits a video from the `/task` screen
 * against a testkit Sora fake, the server's poller finishes it, the list follows it to SUCCESS
 * and the preview plays the video through the gateway's own (signed, sandboxed) content route.
 * `E2E_SHOTS=<dir>` also saves the screen at 1366 and 1920 px, the form and the player open.
 */
const shots = process.env.E2E_SHOTS;

for (const lang of ['zh', 'en'] as Lang[]) {
  test(`a video submitted from the task screen completes and plays in the preview (${lang})`, async ({ page }) => {
    test.setTimeout(180_000);
    const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);
    const tag = `${lang}${Date.now().toString(36)}`;
    let sora: FakeSora | undefined;
    try {
      sora = await startFakeSora({ key: 'e2e-sora', stepMs: 600 });
      await page.addInitScript((l) => localStorage.getItem('i18nextLng') || localStorage.setItem('i18nextLng', l), lang);
      await loginAsRoot(page, lang);
      await consoleApi(page, 'POST', '/api/channel/', { type: 55, name: `sora-${tag}`, key: 'e2e-sora', base_url: sora.url, models: 'sora-2', groups: ['default'], group: 'default' });

      await page.getByTestId('side-nav').getByRole('link', { name: t('nav.task'), exact: true }).click();
      await expect(page).toHaveURL(/\/task$/);
      await page.getByRole('button', { name: t('task:video.new') }).click();
      const dialog = page.getByRole('dialog', { name: t('task:video.formTitle') });
      await expect(dialog.getByLabel(t('task:video.model'))).toHaveValue('sora-2');
      await dialog.getByLabel(t('task:video.prompt')).fill(`a lighthouse at dusk, waves below ${tag}`);
      await dialog.getByLabel(t('task:video.seconds')).fill('8');
      await dialog.getByLabel(t('task:video.size')).fill('1280x720');
      if (shots) await page.screenshot({ path: `${shots}/video-form-${lang}.png` });
      // antd spaces out a two-character Chinese button label ("提 交").
      await dialog.getByRole('button', { name: new RegExp(`^${[...t('task:video.submit')].join('\\s*')}$`) }).click();

      const toast = page.getByText(trPattern(lang, 'task:video.submitted'));
      await expect(toast).toBeVisible();
      const id = /video_[0-9a-f]{32}/.exec((await toast.textContent()) ?? '')?.[0];
      expect(id).toBeTruthy();
      expect(sora.requests.find((r) => r.method === 'POST')?.body).toMatchObject({ model: 'sora-2', seconds: '8', size: '1280x720' });

      // The list follows the unfinished task by itself until the poller has finished it.
      const row = page.locator('tr.ant-table-row').filter({ hasText: id! });
      await expect(row.getByText(t('task:action.textGenerate'), { exact: true })).toBeVisible();
      await expect(row.getByText(t('task:status.SUCCESS'), { exact: true })).toBeVisible({ timeout: 45_000 });
      await expect(row.getByText(t('task:video.summary', { seconds: 8, size: '1280x720' }))).toBeVisible();
      if (shots) {
        await page.waitForTimeout(300);
        await page.screenshot({ path: `${shots}/video-task-${lang}-1366.png`, fullPage: true });
      }

      await row.getByRole('button', { name: new RegExp(t('task:video.preview')) }).click();
      const player = page.getByTestId('video-preview');
      await expect(player).toHaveAttribute('src', new RegExp(`^/api/task/${id}/content\\?exp=\\d+&sig=`));
      // The browser plays the fake's MP4 as the gateway streams it (the metadata loads, its frame is 64 px wide).
      await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.readyState), { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
      expect(await player.evaluate((v: HTMLVideoElement) => v.videoWidth)).toBe(64);
      const src = (await player.getAttribute('src'))!;
      const res = await page.request.get(src);
      expect(res.headers()['content-type']).toBe('video/mp4');
      expect(res.headers()['content-security-policy']).toBe("default-src 'none'; sandbox");
      if (shots) {
        await page.setViewportSize({ width: 1920, height: 1080 });
        await page.waitForTimeout(300);
        await page.screenshot({ path: `${shots}/video-preview-${lang}-1920.png` });
        await page.keyboard.press('Escape');
        await page.waitForTimeout(300);
        await page.screenshot({ path: `${shots}/video-task-${lang}-1920.png`, fullPage: true });
      }
    } finally {
      const mine = await consoleApi<Array<{ id: number }>>(page, 'GET', `/api/channel/search?keyword=sora-${tag}`).catch(() => []);
      for (const ch of mine) await consoleApi(page, 'DELETE', `/api/channel/${ch.id}`).catch(() => undefined);
      await sora?.close();
    }
  });
}

for (const lang of ['zh', 'en'] as Lang[]) {
  test(`root prices a video model per second and tier in the pricing editor (${lang})`, async ({ page }) => {
    const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);
    const model = `e2e-video-${lang}-${Date.now().toString(36)}`;
    await page.addInitScript((l) => localStorage.getItem('i18nextLng') || localStorage.setItem('i18nextLng', l), lang);
    await loginAsRoot(page, lang);
    await page.goto('/setting?tab=operation');
    await page.getByRole('tab', { name: t('pricing:editor.tabVideo') }).click();
    const editor = page.getByTestId('video-price-editor');
    await expect(editor.locator('tr.ant-table-row').first()).toBeVisible();
    await editor.getByLabel(t('pricing:video.model'), { exact: true }).fill(model);
    await editor.getByLabel(t('pricing:video.tier'), { exact: true }).fill('720P');
    await editor.getByLabel(t('pricing:video.usd'), { exact: true }).fill('0.2');
    await editor.getByRole('button', { name: t('pricing:video.add') }).click();
    await expect(editor.locator('tr.ant-table-row').filter({ hasText: model })).toContainText(t('pricing:video.perSecond', { price: '0.2' }));
    if (shots) {
      for (const [width, height] of [[1366, 860], [1920, 1080]] as const) {
        await page.setViewportSize({ width, height });
        await page.waitForTimeout(300);
        await page.locator('[data-section="ratio"]').screenshot({ path: `${shots}/video-prices-${lang}-${width}.png` });
      }
    }
    await editor.getByRole('button', { name: t('pricing:video.save') }).click();
    await expect(page.getByText(t('pricing:editor.saved'), { exact: true })).toBeVisible();
    const options = await consoleApi<Array<{ key: string; value: string }>>(page, 'GET', '/api/option/');
    const saved = JSON.parse(options.find((o) => o.key === 'VideoPrice')!.value) as Record<string, Record<string, number>>;
    expect(saved[model]).toEqual({ '720p': 0.2 });
    expect(saved['sora-2']).toEqual({ '*': 0.1 });
  });
}
