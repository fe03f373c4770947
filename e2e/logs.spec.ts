import type { Page } from '@playwright/test';
import OpenAI from 'openai';
import {
  consoleApi,
  expect,
  FAKE_KEY,
  FAKE_UPSTREAM,
  loginAsRoot,
  newToken,
  setModelEntry,
  test,
  tr,
  useLanguage,
  type Lang,
} from './fixtures';

/** Both languages fault the same instance-wide slot, so the fault always names both models. */
const FAULT_MODELS = ['e2e-fault-zh', 'e2e-fault-en'];
const rows = (page: Page) => page.locator('.ant-table-tbody tr.ant-table-row');


for (const lang of ['zh', 'en'] as Lang[]) {
  test(`a call made with the SDK is traced and billed in the log; an upstream 401 auto-disables its channel (${lang})`, async ({ page, baseURL }) => {
    const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);
    const run = `lg${lang}${Date.now().toString(36).slice(-5)}`;
    const faultModel = `e2e-fault-${lang}`;
    // Several screens and real upstream calls: slower than the default budget on a loaded 2-core CI machine.
    test.setTimeout(180_000);
    await useLanguage(page, lang);
    await loginAsRoot(page, lang);

    // Set-up through the API: the channel and token screens have their own tests.
    await consoleApi(page, 'PUT', '/api/option/', { key: 'AutomaticDisableChannelEnabled', value: 'true' });
    for (const [name, models] of [[`${run}-ok`, 'gpt-4'], [`${run}-fault`, faultModel]]) {
      await consoleApi(page, 'POST', '/api/channel/', {
        type: 1, name, key: FAKE_KEY, base_url: FAKE_UPSTREAM, models, groups: ['default'], group: 'default', auto_ban: 1,
      });
    }
    // Priced, so the call reaches the upstream that refuses it (an unpriced model is refused locally).
    await setModelEntry(page, 'ModelRatio', faultModel, 1);
    const client = new OpenAI({ baseURL: `${baseURL}/v1`, apiKey: await newToken(page, run), maxRetries: 0 });

    const reply = await client.chat.completions.create({ model: 'gpt-4', messages: [{ role: 'user', content: 'trace this call in the log' }] });
    const stream = await client.chat.completions.create({ model: 'gpt-4', stream: true, messages: [{ role: 'user', content: 'trace this call in the log' }] });
    for await (const chunk of stream) void chunk;
    const prompt = reply.usage!.prompt_tokens;
    const completion = reply.usage!.completion_tokens;
    // Both calls carry the same prompt, so they cost the same.
    // gpt-4: model ratio 15, completion ratio 2, default group ratio 1 (spec §9 cost formula).
    const quota = (prompt + completion * 2) * 15;
    const dollars = `$${(quota / 500000).toFixed(6)}`;

    await page.getByTestId('side-nav').getByRole('link', { name: t('nav.log'), exact: true }).click();
    await expect(page).toHaveURL(/\/log$/);
    await page.getByLabel(t('log:filter.tokenName'), { exact: true }).fill(run);
    await page.getByLabel(t('log:filter.type'), { exact: true }).click();
    await page.locator('.ant-select-item-option').filter({ hasText: t('log:type.2') }).click();
    await page.getByRole('button', { name: t('log:filter.submit') }).click();
    await expect(rows(page)).toHaveCount(2);

    const plain = rows(page).filter({ hasText: t('log:column.nonStream') });
    await expect(plain.getByTestId('log-cost')).toHaveText(dollars);
    await expect(plain.getByTestId('use-time')).toHaveClass(/ant-tag-green/);
    const streamed = rows(page).filter({ hasText: t('log:column.stream') });
    await expect(streamed.getByText(t('log:column.stream'), { exact: true })).toBeVisible();
    await expect(streamed.getByTestId('frt')).toHaveClass(/ant-tag-green/);

    await plain.locator('.ant-table-row-expand-icon').click();
    const detail = page.getByTestId('log-detail').first();
    await expect(detail.locator('[data-field=modelRatio]')).toHaveText('15');
    await expect(detail.locator('[data-field=completionRatio]')).toHaveText('2');
    await expect(detail.locator('[data-field=groupRatio]')).toHaveText('1');
    await expect(detail.locator('[data-field=promptTokens]')).toHaveText(String(prompt));
    await expect(detail.locator('[data-field=completionTokens]')).toHaveText(String(completion));
    await expect(detail.locator('[data-field=useChannel]')).toHaveText(/^\d+$/);
    await expect(detail.getByTestId('log-formula')).toContainText(
      t('log:detail.ratioFormula', { prompt, completion, completionRatio: 2, modelRatio: 15, group: 1, units: quota, charged: dollars }),
    );
    await expect(page.getByTestId('log-stats')).toContainText(t('log:stat.quota', { value: `$${(quota * 2 / 500000).toFixed(4)}` }));

    // The admin's user popup.
    await plain.getByRole('button', { name: 'root', exact: true }).click();
    const popup = page.getByRole('dialog', { name: t('log:user.title') });
    await expect(popup).toContainText('root');
    await popup.getByRole('button', { name: t('common:action.close') }).click();

    // Clear logs: the chooser starts one month back; nothing in this fresh install is that old.
    await page.getByRole('button', { name: t('log:clear.button') }).click();
    const clear = page.getByRole('dialog', { name: t('log:clear.title') });
    const monthAgo = new Date(Date.now() - 30 * 86400_000).toISOString().slice(0, 7);
    await expect(clear.getByLabel(t('log:clear.before'))).toHaveValue(new RegExp(`^${monthAgo}`));
    await clear.getByRole('button', { name: t('log:clear.confirm'), exact: true }).click();
    await expect(page.getByText(t('log:clear.done', { count: 0 }))).toBeVisible();

    // Upstream fault: the fake rejects the key; the channel is auto-disabled and says why.
    await fetch(`${FAKE_UPSTREAM}/__fake/fault`, {
      method: 'POST',
      body: JSON.stringify({ status: 401, code: 'invalid_api_key', type: 'invalid_request_error', message: 'Incorrect API key provided', models: FAULT_MODELS }),
    });
    await expect(client.chat.completions.create({ model: faultModel, messages: [{ role: 'user', content: 'hi' }] })).rejects.toThrow();
    await page.getByTestId('side-nav').getByRole('link', { name: t('nav.channel'), exact: true }).click();
    await page.getByLabel(t('channel:search.keyword')).fill(`${run}-fault`);
    await page.getByRole('button', { name: t('channel:search.submit'), exact: true }).click();
    await expect(rows(page)).toHaveCount(1);
    const status = rows(page).locator('[data-status="auto-disabled"]');
    await expect(status).toHaveText(t('channel:status.autoDisabled'));
    await status.hover();
    await expect(page.getByTestId('status-reason')).toContainText('Incorrect API key provided');
  });
}
