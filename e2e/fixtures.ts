import { test as base, expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export { expect };

export type Lang = 'zh' | 'en';

const i18nDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../packages/web/src/i18n');
const bundles = new Map<string, Record<string, unknown>>();

/** The console's own translations, so assertions follow the copy instead of duplicating it. */
export function tr(lang: Lang, key: string, vars: Record<string, string | number> = {}): string {
  const [ns, rest] = key.includes(':') ? key.split(':', 2) : ['common', key];
  const file = `${lang}/${ns}`;
  if (!bundles.has(file)) bundles.set(file, JSON.parse(readFileSync(path.join(i18nDir, `${file}.json`), 'utf8')));
  const lookup = (path: string): unknown => path.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], bundles.get(file));
  // i18next's plural rule: a `_one` form for a count of 1 in English (Chinese has a single form).
  const one = vars.count !== undefined && new Intl.PluralRules(lang).select(Number(vars.count)) === 'one' ? lookup(`${rest}_one`) : undefined;
  const value = one ?? lookup(rest!);
  if (typeof value !== 'string') throw new Error(`missing translation ${lang}:${key}`);
  return value.replace(/{{\s*(\w+)\s*}}/g, (_, name: string) => String(vars[name] ?? ''));
}

interface ConsoleMessageInfo {
  text: string;
  url: string;
}

interface ConsoleGuard {
  /** Tolerate console errors matching this predicate (e.g. an expected 401 resource error). */
  allow: (predicate: (message: ConsoleMessageInfo) => boolean) => void;
}

export const test = base.extend<{ consoleGuard: ConsoleGuard }>({
  // auto: every test gets the guard, whether or not it asks for it.
  consoleGuard: [
    async ({ page }, use) => {
    // Telegram's login widget is a third-party script the login page loads while another spec file
    // has Telegram sign-in switched on; the internet is out of reach here, so it is answered empty.
    await page.route('https://telegram.org/**', (route) => route.fulfill({ status: 200, contentType: 'application/javascript', body: '' }));
    const errors: string[] = [];
    const allowed: ((message: ConsoleMessageInfo) => boolean)[] = [
      // The page's Content-Security-Policy names telegram.org only when Telegram sign-in was on at load;
      // when that spec switches it on while this page is open, the console re-reads the status and the
      // browser (rightly) blocks the widget until a reload. A cross-spec race, not a fault of this page.
      (m) => m.text.includes('telegram-widget.js') && m.text.includes('Content Security Policy'),
    ];
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      const info = { text: message.text(), url: message.location().url };
      if (!allowed.some((predicate) => predicate(info))) errors.push(`${info.text} (${info.url})`);
    });
    page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
    await use({ allow: (predicate) => allowed.push(predicate) });
    expect(errors, 'the browser console must stay free of errors').toEqual([]);
    },
    { auto: true },
  ],
});

/** Starts the page in a language (as if chosen earlier) before any script runs. */
export async function useLanguage(page: Page, lang: Lang): Promise<void> {
  await page.addInitScript((value) => {
    if (!localStorage.getItem('mg-e2e-lang-set')) {
      localStorage.setItem('i18nextLng', value);
      localStorage.setItem('mg-e2e-lang-set', '1');
    }
  }, lang);
}

export function uniqueName(prefix: string): string {
  // Usernames are at most 12 characters.
  return `${prefix}${Date.now().toString(36).slice(-5)}${Math.floor(Math.random() * 1296).toString(36)}`.slice(0, 12);
}

export async function login(page: Page, lang: Lang, username: string, password: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel(tr(lang, 'auth:login.username')).fill(username);
  await page.getByLabel(tr(lang, 'auth:login.password')).fill(password);
  await page.getByRole('button', { name: tr(lang, 'auth:login.submit'), exact: true }).click();
  await expect(page).toHaveURL(/\/token$/);
}

/**
 * Signs out from the header's user menu and waits for the login page. The menu item's click is
 * checked by the logout request it sends: on a loaded CI machine the menu sometimes did not open at
 * the first click (no menu item, no request, the page stayed put); the attempt is made again, as a
 * user would.
 */
export async function signOut(page: Page, lang: Lang): Promise<void> {
  await expect(async () => {
    await page.getByTestId('user-menu').click();
    // Together, so a failed click leaves no waiting promise behind to reject after this attempt.
    await Promise.all([
      page.waitForRequest((r) => r.url().includes('/api/user/logout'), { timeout: 5_000 }),
      page.getByRole('menuitem', { name: tr(lang, 'auth.logout') }).click({ timeout: 5_000 }),
    ]);
  }).toPass({ timeout: 30_000 });
  await expect(page).toHaveURL(/\/login$/, { timeout: 20_000 });
}

export async function loginAsRoot(page: Page, lang: Lang): Promise<void> {
  await login(page, lang, 'root', '123456');
  // The default-password warning must appear for root/123456; dismiss it.
  const dialog = page.getByRole('dialog').filter({ hasText: tr(lang, 'auth:login.defaultPasswordTitle') });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button').last().click();
  await expect(dialog).toBeHidden();
}

export async function register(page: Page, lang: Lang, username: string, password: string): Promise<void> {
  await page.goto('/register');
  await page.getByLabel(tr(lang, 'auth:register.username')).fill(username);
  await page.getByLabel(tr(lang, 'auth:register.password'), { exact: true }).fill(password);
  await page.getByLabel(tr(lang, 'auth:register.password2')).fill(password);
  await page.getByRole('button', { name: tr(lang, 'auth:register.submit'), exact: true }).click();
  await expect(page.getByText(tr(lang, 'auth:register.success'))).toBeVisible();
  await expect(page).toHaveURL(/\/login$/);
}

/** The testkit fake OpenAI upstream started by playwright.config.ts (channels point here). */
export const FAKE_UPSTREAM = `http://127.0.0.1:${process.env.E2E_FAKE_PORT}`;
export const FAKE_KEY = 'sk-e2e-upstream';

/** The testkit fake Epay gateway started by playwright.config.ts (the wallet's online top-up). */
export const FAKE_EPAY = `http://127.0.0.1:${process.env.E2E_EPAY_PORT}`;
export const FAKE_EPAY_PID = '1001';
export const FAKE_EPAY_KEY = 'e2e-epay-key';

/** Calls the console API with the signed-in page's session (test set-up only, never what is under test). */
export async function consoleApi<T = unknown>(page: Page, method: string, url: string, body?: unknown): Promise<T> {
  const userId = await page.evaluate(() => (JSON.parse(localStorage.getItem('user') ?? '{}') as { id?: number }).id ?? -1);
  const response = await page.request.fetch(url, { method, data: body, headers: { 'New-Api-User': String(userId) } });
  const json = (await response.json()) as { success: boolean; message: string; data: T };
  if (!json.success) throw new Error(`${method} ${url}: ${json.message}`);
  return json.data;
}

/** An unlimited API token for relay calls, created as the signed-in user (set-up); answers its `sk-` key. */
export async function newToken(page: Page, name: string): Promise<string> {
  await consoleApi(page, 'POST', '/api/token/', {
    name,
    remain_quota: 0,
    expired_time: -1,
    unlimited_quota: true,
    model_limits_enabled: false,
    model_limits: '',
    allow_ips: '',
    group: '',
  });
  const [token] = await consoleApi<{ key: string }[]>(page, 'GET', `/api/token/search?keyword=${name}&token=`);
  return `sk-${token!.key}`;
}

/**
 * Sets one model's entry in a JSON price option (`ModelRatio`, `ModelPrice`) as root, keeping the
 * others. Spec files run side by side and each reads, changes and writes the whole option, so the
 * entry is read back and written again if another file's write lost it.
 */
export async function setModelEntry(page: Page, key: 'ModelRatio' | 'ModelPrice', model: string, value: number): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const options = await consoleApi<{ key: string; value: string }[]>(page, 'GET', '/api/option/');
    const current = JSON.parse(options.find((o) => o.key === key)?.value || '{}') as Record<string, number>;
    if (attempt > 0 && current[model] === value) return;
    await consoleApi(page, 'PUT', '/api/option/', { key, value: JSON.stringify({ ...current, [model]: value }, null, 2) });
    await page.waitForTimeout(100 * (attempt + 1));
  }
  throw new Error(`${key}: the entry for ${model} did not stay`);
}

/** A translation as a pattern: the given variables are filled in, the others match anything. */
export function trPattern(lang: Lang, key: string, vars: Record<string, string | number> = {}): RegExp {
  const marker = '\u0000';
  const text = tr(lang, key, new Proxy(vars, { get: (target, name: string) => (name in target ? target[name] : marker) }));
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').split(marker).join('.+');
  return new RegExp(escaped);
}

/**
 * `E2E_SHOTS=<dir>`: a full-page screenshot at 1366 and 1920 px, `<dir>/<name>-<width>.png`; the
 * window goes back to 1366 × 860 afterwards. Nothing without E2E_SHOTS.
 */
export async function snapAtWidths(page: Page, name: string): Promise<void> {
  const shots = process.env.E2E_SHOTS;
  if (!shots) return;
  for (const width of [1366, 1920]) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(300);
    await page.screenshot({ path: `${shots}/${name}-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1366, height: 860 });
}
