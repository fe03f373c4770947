import { expect, loginAsRoot, test, tr, uniqueName, useLanguage, type Lang } from './fixtures';

for (const lang of ['zh', 'en'] as Lang[]) {
  test(`an admin creates, edits, disables, enables, promotes and deletes users (${lang})`, async ({ page }) => {
    await useLanguage(page, lang);
    await loginAsRoot(page, lang);
    await page.getByTestId('side-nav').getByRole('link', { name: tr(lang, 'nav.user'), exact: true }).click();
    await expect(page).toHaveURL(/\/user$/);

    const username = uniqueName('m');
    await page.getByRole('button', { name: tr(lang, 'user:add.button'), exact: true }).click();
    const modal = page.getByRole('dialog', { name: tr(lang, 'user:add.title') });
    await modal.getByLabel(tr(lang, 'user:field.username')).fill(username);
    await modal.getByLabel(tr(lang, 'user:field.displayName')).fill('Managed');
    await modal.getByLabel(tr(lang, 'user:field.password')).fill('password123');
    await modal.getByRole('button', { name: tr(lang, 'user:add.submit'), exact: true }).click();
    await expect(page.getByText(tr(lang, 'user:add.success'))).toBeVisible();

    await page.getByLabel(tr(lang, 'user:search.keyword')).fill(username);
    await page.getByRole('button', { name: tr(lang, 'user:search.submit'), exact: true }).click();
    const rows = page.locator('.ant-table-tbody tr.ant-table-row');
    await expect(rows).toHaveCount(1);
    const row = rows.first();
    await expect(row).toContainText(username);
    await expect(row.getByText(tr(lang, 'user:status.active'), { exact: true })).toBeVisible();
    await expect(row.getByText(tr(lang, 'role.user'), { exact: true })).toBeVisible();

    // Edit: display name and +$1 of quota (500 000 units).
    await row.getByRole('button', { name: tr(lang, 'common:action.edit'), exact: true }).click();
    const drawer = page.getByRole('dialog', { name: tr(lang, 'user:edit.title') });
    await expect(drawer.getByLabel(tr(lang, 'user:field.username'))).toHaveValue(username);
    await drawer.getByLabel(tr(lang, 'user:field.displayName')).fill('Edited name');
    await drawer.getByLabel(tr(lang, 'user:field.addQuota')).fill('500000');
    await drawer.getByRole('button', { name: tr(lang, 'common:action.save'), exact: true }).click();
    await expect(page.getByText(tr(lang, 'user:edit.success'))).toBeVisible();
    await expect(row).toContainText('Edited name');
    await expect(row).toContainText(tr(lang, 'user:column.balanceValue', { value: '$1.00' }));

    const act = (key: string) => row.getByRole('button', { name: tr(lang, key), exact: true }).click();
    await act('user:action.disable');
    await expect(row.getByText(tr(lang, 'user:status.banned'), { exact: true })).toBeVisible();
    await act('user:action.enable');
    await expect(row.getByText(tr(lang, 'user:status.active'), { exact: true })).toBeVisible();
    await act('user:action.promote');
    await expect(row.getByText(tr(lang, 'role.admin'), { exact: true })).toBeVisible();
    await act('user:action.demote');
    await expect(row.getByText(tr(lang, 'role.user'), { exact: true })).toBeVisible();

    // Delete is irreversible: confirmed, then the row shows cancelled without actions.
    await act('user:action.delete');
    await page
      .locator('.ant-popconfirm')
      .getByRole('button', { name: tr(lang, 'user:action.deleteConfirm'), exact: true })
      .click();
    await expect(row.getByText(tr(lang, 'user:status.cancelled'), { exact: true })).toBeVisible();
    await expect(row.getByRole('button')).toHaveCount(0);
  });
}
