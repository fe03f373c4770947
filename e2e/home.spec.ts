import { consoleApi, expect, loginAsRoot, test, tr, useLanguage, type Lang } from './fixtures';

const lang: Lang = 'en';

test('home shows the admin notice once and the Markdown home content; about sanitises admin HTML', async ({ page, browser }) => {
  await useLanguage(page, lang);
  await loginAsRoot(page, lang);
  const stamp = Date.now().toString(36);
  await consoleApi(page, 'PUT', '/api/option/', { key: 'Notice', value: `**Maintenance** tonight ${stamp}` });
  await consoleApi(page, 'PUT', '/api/option/', { key: 'HomePageContent', value: `## Welcome to Gate ${stamp}\n\n- fast\n- exact` });
  await consoleApi(page, 'PUT', '/api/option/', {
    key: 'About',
    value: `<h2 id="about-title" onclick="window.__xss=1">About us ${stamp}</h2><script>window.__xss=1</script><p>Plain text</p>`,
  });

  const visitor = await browser.newPage();
  await useLanguage(visitor, lang);
  await visitor.goto('/');
  const notice = visitor.getByRole('dialog', { name: tr(lang, 'home:notice') });
  await expect(notice).toBeVisible();
  await expect(notice.locator('strong')).toHaveText('Maintenance');
  await expect(visitor.getByRole('heading', { name: `Welcome to Gate ${stamp}` })).toBeVisible();
  await expect(visitor.getByRole('listitem').filter({ hasText: 'exact' })).toBeVisible();
  // The footer button (the header's × is also named Close).
  await notice.locator('.ant-modal-footer').getByRole('button', { name: tr(lang, 'common:action.close'), exact: true }).click();
  await expect(notice).toBeHidden();
  // Seen once: not shown again after a reload, until the notice changes.
  await visitor.reload();
  await expect(visitor.getByRole('heading', { name: `Welcome to Gate ${stamp}` })).toBeVisible();
  await expect(visitor.getByRole('dialog')).toHaveCount(0);

  await visitor.goto('/about');
  const title = visitor.getByRole('heading', { name: `About us ${stamp}` });
  await expect(title).toBeVisible();
  await expect(title).not.toHaveAttribute('onclick');
  await title.click();
  expect(await visitor.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
  await visitor.close();

  for (const key of ['Notice', 'HomePageContent', 'About']) await consoleApi(page, 'PUT', '/api/option/', { key, value: '' });
});
