import { generate } from 'otplib';
import { expect, login, register, signOut, test, tr, uniqueName, useLanguage, type Lang } from './fixtures';
import type { Page } from '@playwright/test';

/**
 * A code for the step after the current one: the enrolment took the current step's code, and a
 * code is single-use within its step; the server accepts one step either side of its clock.
 */
const nextCode = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });

async function passwordStep(page: Page, lang: Lang, username: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel(tr(lang, 'auth:login.username')).fill(username);
  await page.getByLabel(tr(lang, 'auth:login.password')).fill('password123');
  await page.getByRole('button', { name: tr(lang, 'auth:login.submit'), exact: true }).click();
  await expect(page.getByText(tr(lang, 'auth:twoFactor.prompt'))).toBeVisible();
}

for (const lang of ['zh', 'en'] as const) {
  test(`TOTP two-factor: enrol in personal settings, then sign in with a code and with a backup code (${lang})`, async ({ page }) => {
    // Enrolment, three sign-ins and turning it off: more steps than the suite's default minute.
    test.setTimeout(180_000);
    await useLanguage(page, lang);
    const username = uniqueName(`t${lang}`);
    await register(page, lang, username, 'password123');
    await login(page, lang, username, 'password123');

    await page.goto('/setting');
    const card = page.getByTestId('security-card');
    await expect(card.getByText(tr(lang, 'setting:twoFactor.off'), { exact: true })).toBeVisible();
    await card.getByRole('button', { name: tr(lang, 'setting:twoFactor.setup') }).click();
    await expect(card.getByRole('img', { name: tr(lang, 'setting:twoFactor.qrAlt') })).toBeVisible();
    const secret = ((await card.getByTestId('two-factor-secret').textContent()) ?? '').trim();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    // A wrong code is refused with the server's message; the right one turns it on.
    await card.getByLabel(tr(lang, 'setting:twoFactor.code')).fill('000000');
    await card.getByRole('button', { name: tr(lang, 'setting:twoFactor.enable'), exact: true }).click();
    await expect(page.getByText(lang === 'zh' ? '验证码或备用码错误，请重试' : 'The code or backup code is incorrect, please try again')).toBeVisible();
    await card.getByLabel(tr(lang, 'setting:twoFactor.code')).fill(await generate({ secret }));
    await card.getByRole('button', { name: tr(lang, 'setting:twoFactor.enable'), exact: true }).click();
    const codes = card.getByTestId('backup-codes').locator('li');
    await expect(codes).toHaveCount(10);
    const backup = ((await codes.first().textContent()) ?? '').trim();
    expect(backup).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    const another = ((await codes.nth(1).textContent()) ?? '').trim();
    await card.getByRole('button', { name: tr(lang, 'setting:twoFactor.saved') }).click();
    await expect(card.getByText(tr(lang, 'setting:twoFactor.on'), { exact: true })).toBeVisible();
    await expect(card.getByText(tr(lang, 'setting:twoFactor.remaining', { count: 10 }))).toBeVisible();

    // The password alone no longer signs in: the second step asks for the code.
    await signOut(page, lang);
    await passwordStep(page, lang, username);
    await page.getByLabel(tr(lang, 'auth:twoFactor.code')).fill(await nextCode(secret));
    await page.getByRole('button', { name: tr(lang, 'auth:twoFactor.submit') }).click();
    await expect(page).toHaveURL(/\/token$/);

    // A backup code works instead (once).
    await signOut(page, lang);
    await passwordStep(page, lang, username);
    await page.getByLabel(tr(lang, 'auth:twoFactor.code')).fill(backup);
    await page.getByRole('button', { name: tr(lang, 'auth:twoFactor.submit') }).click();
    await expect(page).toHaveURL(/\/token$/);
    await page.goto('/setting');
    await expect(page.getByTestId('security-card').getByText(tr(lang, 'setting:twoFactor.remaining', { count: 9 }))).toBeVisible();

    // Turned off with another backup code: the password alone signs in again.
    await page.getByTestId('security-card').getByRole('button', { name: tr(lang, 'setting:twoFactor.disable'), exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(tr(lang, 'setting:twoFactor.codeOrBackup')).fill(another);
    await dialog.getByRole('button', { name: tr(lang, 'setting:twoFactor.confirm') }).click();
    await expect(page.getByTestId('security-card').getByText(tr(lang, 'setting:twoFactor.off'), { exact: true })).toBeVisible();
    await signOut(page, lang);
    await login(page, lang, username, 'password123');
  });
}
