import type { CDPSession, Page } from '@playwright/test';
import { expect, login, register, signOut, test, tr, uniqueName, type Lang } from './fixtures';
import { ownServer, pageOn } from './own-server';

/**
 * Passkeys in Chromium with its virtual authenticator (CDP WebAuthn domain): registration in the
 * personal security card, sign-in with the passkey alone, and a passkey as the second factor.
 * WebAuthn needs a secure context and a domain as its relying-party id, so these pages are on
 * `http://localhost` (the suite's shared server is reached by IP): a server of their own, whose
 * ServerAddress names that host, as an operator's would.
 */
const SHOTS = process.env.E2E_SHOTS_DIR ?? '/tmp/shots-passkeys';

let site: string;
let child: Awaited<ReturnType<typeof ownServer>>['child'] | undefined;

test.beforeAll(async () => {
  const own = await ownServer({ REJECT_COMMON_PASSWORDS: 'false', GLOBAL_WEB_RATE_LIMIT_ENABLE: 'false', GLOBAL_API_RATE_LIMIT_ENABLE: 'false' });
  child = own.child;
  site = own.url.replace('127.0.0.1', 'localhost');
  // Root sets the server address: the passkeys' relying party is its host.
  const cookie = await rootCookie(own.url);
  const r = await fetch(`${own.url}/api/option/`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json', Cookie: cookie, 'New-Api-User': '1', Origin: own.url },
    body: JSON.stringify({ key: 'ServerAddress', value: site }),
  });
  expect(((await r.json()) as { success: boolean }).success).toBe(true);
});

test.afterAll(() => {
  child?.kill();
});

async function rootCookie(url: string): Promise<string> {
  const r = await fetch(`${url}/api/user/login`, { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: url }, body: JSON.stringify({ username: 'root', password: '123456' }) });
  return r.headers.getSetCookie().find((c) => c.startsWith('session='))!.split(';')[0]!;
}

/** A platform authenticator with user verification, as a laptop's fingerprint reader. */
async function addAuthenticator(cdp: CDPSession): Promise<string> {
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return authenticatorId;
}

async function withAuthenticator(page: Page): Promise<{ cdp: CDPSession; id: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  return { cdp, id: await addAuthenticator(cdp) };
}

/** Adds a passkey named `name` from the security card (the browser's prompt is the virtual authenticator's). */
async function addPasskey(page: Page, lang: Lang, name: string): Promise<void> {
  const section = page.getByTestId('passkeys');
  await section.getByRole('button', { name: tr(lang, 'passkey:add') }).click();
  const dialog = page.getByRole('dialog').filter({ hasText: tr(lang, 'passkey:addTitle') });
  await dialog.getByLabel(tr(lang, 'passkey:name')).fill(name);
  await dialog.getByRole('button', { name: tr(lang, 'passkey:continue') }).click();
  await expect(page.getByText(tr(lang, 'passkey:added'))).toBeVisible();
  await expect(dialog).toBeHidden();
  await expect(section.getByTestId('passkey-item').filter({ hasText: name })).toBeVisible();
}

async function shot(page: Page, name: string, lang: Lang, target?: ReturnType<Page['getByTestId']>): Promise<void> {
  for (const width of [1366, 1920]) {
    await page.setViewportSize({ width, height: 900 });
    if (target) await target.screenshot({ path: `${SHOTS}/${name}-${width}-${lang}.png` });
    else await page.screenshot({ path: `${SHOTS}/${name}-${width}-${lang}.png` });
  }
  await page.setViewportSize({ width: 1366, height: 860 });
}

for (const lang of ['zh', 'en'] as const) {
  test(`passkeys: register two in personal settings, then sign in with a passkey alone (${lang})`, async ({ browser }) => {
    test.setTimeout(180_000);
    const page = await pageOn(browser, site, lang);
    const { cdp, id: first } = await withAuthenticator(page);
    const username = uniqueName(`pk${lang}`);
    await register(page, lang, username, 'password123');
    await login(page, lang, username, 'password123');

    await page.goto('/setting');
    const card = page.getByTestId('security-card');
    await expect(card.getByText(tr(lang, 'passkey:none'))).toBeVisible();
    await addPasskey(page, lang, lang === 'zh' ? '办公电脑' : 'Work laptop');
    // This authenticator holds the account's passkey: a second one comes from another device.
    await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: first });
    await addAuthenticator(cdp);
    await addPasskey(page, lang, lang === 'zh' ? '手机' : 'Phone');
    const items = card.getByTestId('passkey-item');
    await expect(items).toHaveCount(2);
    // Renamed in place.
    await items.nth(1).getByRole('button', { name: tr(lang, 'passkey:rename') }).click();
    const rename = page.getByRole('dialog').filter({ hasText: tr(lang, 'passkey:renameTitle') });
    await rename.getByLabel(tr(lang, 'passkey:name')).fill(lang === 'zh' ? '个人手机（备用）' : 'Personal phone (spare)');
    await rename.getByRole('button', { name: tr(lang, 'passkey:rename') }).click();
    await expect(page.getByText(tr(lang, 'passkey:renamed'))).toBeVisible();
    await expect(rename).toBeHidden();
    await expect(items.nth(1)).toContainText(lang === 'zh' ? '个人手机（备用）' : 'Personal phone (spare)');
    await expect(items.first()).toContainText(tr(lang, 'passkey:neverUsed'));
    await shot(page, 'security-card', lang, card);

    // Signed out, the passkey alone signs in: no username, no password.
    await signOut(page, lang);
    await shot(page, 'login', lang);
    await page.getByRole('button', { name: tr(lang, 'auth:login.passkey') }).click();
    await expect(page).toHaveURL(/\/token$/);
    await page.goto('/setting');
    await expect(page.getByTestId('passkey-item').nth(1)).not.toContainText(tr(lang, 'passkey:neverUsed'));
    await page.context().close();
  });

  test(`passkeys: the password, then a passkey as the second factor (${lang})`, async ({ browser }) => {
    test.setTimeout(180_000);
    const page = await pageOn(browser, site, lang);
    await withAuthenticator(page);
    const username = uniqueName(`p2${lang}`);
    await register(page, lang, username, 'password123');
    await login(page, lang, username, 'password123');
    await page.goto('/setting');
    await addPasskey(page, lang, 'Key');
    await signOut(page, lang);

    await page.getByLabel(tr(lang, 'auth:login.username')).fill(username);
    await page.getByLabel(tr(lang, 'auth:login.password')).fill('password123');
    await page.getByRole('button', { name: tr(lang, 'auth:login.submit'), exact: true }).click();
    await expect(page).toHaveURL(/\/login\/2fa$/);
    await expect(page.getByText(tr(lang, 'passkey:secondFactor.prompt'))).toBeVisible();
    // No TOTP on this account: no code to type.
    await expect(page.getByLabel(tr(lang, 'auth:twoFactor.code'))).toHaveCount(0);
    await shot(page, 'second-factor', lang);
    await page.getByRole('button', { name: tr(lang, 'passkey:secondFactor.use') }).click();
    await expect(page).toHaveURL(/\/token$/);

    // Removed, the password alone signs in again.
    await page.goto('/setting');
    const item = page.getByTestId('passkey-item');
    await item.getByRole('button', { name: tr(lang, 'passkey:remove') }).click();
    await page.getByRole('tooltip').getByRole('button', { name: tr(lang, 'passkey:remove') }).click();
    await expect(page.getByText(tr(lang, 'passkey:removed'))).toBeVisible();
    await expect(item).toHaveCount(0);
    await signOut(page, lang);
    await login(page, lang, username, 'password123');
    await page.context().close();
  });
}
