import type { Page } from '@playwright/test';
import OpenAI from 'openai';
import { consoleApi, expect, FAKE_KEY, FAKE_UPSTREAM, loginAsRoot, newToken, test, tr, useLanguage, type Lang } from './fixtures';

/**
 * Pricing end to end: a price saved by the super admin shows on the public pricing page and bills
 * the next relayed request exactly; the dashboard draws that traffic once the quota_data job has
 * exported it. The first test prices its model in the operation tab's visual editor; later set-up
 * saves prices through `PUT /api/option/` (what that editor sends).
 *
 * E2E_SHOTS=<dir> also saves /pricing and /detail at 1366 and 1920 px in zh and en.
 */
const shots = process.env.E2E_SHOTS;
test.describe.configure({ mode: 'serial' });


// Several relayed calls, an export run and screenshots per test: slow on a busy 2-core machine.
test.describe.configure({ timeout: 120_000 });

async function shot(page: Page, name: string): Promise<void> {
  if (!shots) return;
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(800);
  await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
}

const run = `pr${Date.now().toString(36).slice(-5)}`;
const model = `gpt-e2e-${run}`;

test('a new price shows on the pricing page (zh and en, signed out too) and bills the next request', async ({ page, baseURL, browser }) => {
  test.setTimeout(180_000);
  await useLanguage(page, 'zh');
  await loginAsRoot(page, 'zh');
  await consoleApi(page, 'POST', '/api/channel/', { type: 1, name: `${run}-ch`, key: FAKE_KEY, base_url: FAKE_UPSTREAM, models: model, groups: ['default'], group: 'default' });

  // The super admin prices the model in the visual editor of the operation tab.
  await page.goto('/setting?tab=operation');
  await page.getByRole('tab', { name: tr('zh', 'pricing:editor.tabVisual') }).click();
  const editor = page.getByTestId('ratio-visual-editor');
  await editor.getByRole('button', { name: tr('zh', 'pricing:editor.add') }).click();
  const dialog = page.getByRole('dialog', { name: tr('zh', 'pricing:editor.addTitle') });
  await dialog.getByLabel(tr('zh', 'pricing:editor.name')).fill('gpt-4o-mini');
  await dialog.getByLabel(tr('zh', 'pricing:editor.price')).fill('abc');
  await dialog.getByRole('button', { name: tr('zh', 'pricing:editor.confirm') }).click();
  // A name already in the table and a price that is not a number are refused.
  await expect(dialog.getByText(tr('zh', 'pricing:editor.duplicate'))).toBeVisible();
  await expect(dialog.getByText(tr('zh', 'pricing:editor.notNumber'))).toBeVisible();
  await dialog.getByLabel(tr('zh', 'pricing:editor.name')).fill(model);
  await dialog.getByLabel(tr('zh', 'pricing:editor.price')).fill('0.02');
  // A fixed price disables the ratio fields.
  await expect(dialog.getByLabel(tr('zh', 'pricing:editor.ratio'), { exact: true })).toBeDisabled();
  await dialog.getByRole('button', { name: tr('zh', 'pricing:editor.confirm') }).click();
  await expect(dialog).toBeHidden();
  await editor.getByRole('button', { name: tr('zh', 'pricing:editor.saveVisual') }).click();
  await expect(page.getByText(tr('zh', 'pricing:editor.saved'), { exact: true })).toBeVisible();

  await page.goto('/pricing');
  await page.getByPlaceholder(tr('zh', 'pricing:search')).fill(model);
  const row = page.locator('.ant-table-tbody tr.ant-table-row').filter({ hasText: model });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText(tr('zh', 'pricing:perCall', { price: '$0.02' }));
  await expect(row).toContainText(tr('zh', 'pricing:type.call'));

  // Signed out, in English: the default group's prices.
  const anon = await browser.newPage();
  await useLanguage(anon, 'en');
  await anon.goto(`${baseURL}/pricing`);
  await anon.getByPlaceholder(tr('en', 'pricing:search')).fill(model);
  await expect(anon.locator('.ant-table-tbody tr.ant-table-row').filter({ hasText: model })).toContainText(tr('en', 'pricing:perCall', { price: '$0.02' }));
  await expect(anon.getByText(tr('en', 'pricing:note', { group: 'default', ratio: 1 }))).toBeVisible();
  await anon.close();

  const key = await newToken(page, `${run}-tk`);
  const client = new OpenAI({ apiKey: key, baseURL: `${baseURL}/v1`, maxRetries: 0 });
  await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hello' }] });
  const logs = await consoleApi<{ items: Array<{ quota: number; other: string }> }>(page, 'GET', `/api/log/?p=1&page_size=10&type=2&model_name=${model}`);
  expect(logs.items).toHaveLength(1);
  // $0.02 per call × 500 000 quota per dollar × group ratio 1.
  expect(logs.items[0]!.quota).toBe(10_000);
  expect(JSON.parse(logs.items[0]!.other)).toMatchObject({ model_price: 0.02 });
});

test('the dashboard draws the relayed traffic once it is exported', async ({ page, baseURL }) => {
  // The export runs every DataExportInterval minutes (1 here), checked every 15 s.
  test.setTimeout(240_000);
  await useLanguage(page, 'en');
  await loginAsRoot(page, 'en');
  await consoleApi(page, 'PUT', '/api/option/', { key: 'DataExportEnabled', value: 'true' });
  await consoleApi(page, 'PUT', '/api/option/', { key: 'DataExportInterval', value: '1' });
  const key = await newToken(page, `${run}-dash`);
  const client = new OpenAI({ apiKey: key, baseURL: `${baseURL}/v1`, maxRetries: 0 });
  await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hello again' }] });

  await expect
    .poll(async () => (await consoleApi<Array<{ model_name: string }>>(page, 'GET', `/api/data/?username=&start_timestamp=0&end_timestamp=${Math.floor(Date.now() / 1000) + 3600}`)).some((r) => r.model_name === model), { timeout: 150_000, intervals: [5_000] })
    .toBe(true);

  await page.goto('/detail');
  // The screen's chunk carries echarts: generous on a loaded CI machine.
  await expect(page.locator('.mg-page-card .ant-card-head-title').filter({ hasText: tr('en', 'detail:title') })).toBeVisible({ timeout: 30_000 });
  for (const chart of ['quota', 'count', 'tokens', 'share']) {
    await expect(page.locator(`[data-chart="${chart}"] svg`).first()).toBeVisible({ timeout: 30_000 });
  }
  await expect(page.locator('[data-chart="quota"]')).toContainText(model);
  await expect(page.locator('[data-total="count"] .ant-statistic-content')).not.toHaveText('0');
});

for (const lang of ['zh', 'en'] as Lang[]) {
  for (const width of [1366, 1920]) {
    test(`pricing and dashboard fit ${width} px without horizontal overflow (${lang})`, async ({ page }) => {
      await page.setViewportSize({ width, height: 900 });
      await useLanguage(page, lang);
      await loginAsRoot(page, lang);
      for (const path of ['/pricing', '/detail']) {
        await page.goto(path);
        await expect(page.locator('.mg-page-card').first()).toBeVisible({ timeout: 30_000 });
        // After the dashboard test (serial, same server) the charts are drawn; run alone, the empty state.
        if (path === '/detail') await expect(page.locator('[data-chart="quota"] svg, .mg-detail-empty').first()).toBeVisible({ timeout: 30_000 });
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow, `${path} overflows at ${width}px`).toBeLessThanOrEqual(0);
        await shot(page, `${path.slice(1)}-${lang}-${width}`);
      }
    });
  }
}
