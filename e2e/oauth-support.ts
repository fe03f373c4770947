import { request, type Page } from '@playwright/test';
import type { FakeIdentity } from '@modelgate/testkit';
import { expect, tr, uniqueName, type Lang } from './fixtures';

/* Helpers of the sign-in browser tests (oauth.spec.ts, oauth-screenshots.spec.ts): set-up, not what is under test. */

export const SERVER = `http://127.0.0.1:${process.env.E2E_PORT}`;
export const BOT_TOKEN = '123456789:e2e-telegram-bot-token';
export const BOT_NAME = 'mg_e2e_bot';
export const CLIENT = { clientId: 'mg-e2e-client', clientSecret: 'mg-e2e-secret' };

/** Sets options as root through the console API (set-up, not what is under test). */
export async function setOptions(options: Record<string, string>): Promise<void> {
  const api = await request.newContext({ baseURL: SERVER });
  try {
    const signIn = (await (await api.post('/api/user/login', { data: { username: 'root', password: '123456' } })).json()) as { data: { id: number } };
    for (const [key, value] of Object.entries(options)) {
      const body = (await (await api.put('/api/option/', { data: { key, value }, headers: { 'New-Api-User': String(signIn.data.id) } })).json()) as { success: boolean; message: string };
      if (!body.success) throw new Error(`${key}: ${body.message}`);
    }
  } finally {
    await api.dispose();
  }
}

let serial = 0;
export function identity(): FakeIdentity {
  serial += 1;
  const login = uniqueName('gh');
  return { id: Date.now() % 1_000_000 * 100 + serial, login, name: `Octo ${login}`, email: `${login}@example.com` };
}

/** The visitor's way: the login page's GitHub button, the fake's authorize page (auto-approving), the callback screen. */
export async function signInWithGitHub(page: Page, lang: Lang): Promise<string> {
  await page.goto('/login');
  await page.getByRole('button', { name: tr(lang, 'auth:oauth.with.github') }).click();
  await expect(page).toHaveURL(/\/token$/);
  // The success toast lasts 3 s; on a loaded CI machine it can be gone before /token has rendered,
  // so the signed-in user menu is the proof of the sign-in.
  const menu = page.getByTestId('user-menu');
  await expect(menu).toContainText(/github_\d+/);
  return (await menu.innerText()).trim();
}

/** Telegram's widget script is a third-party download; the browser test answers it with an empty script. */
export async function stubTelegramScript(page: Page): Promise<void> {
  await page.route('https://telegram.org/**', (route) => route.fulfill({ status: 200, contentType: 'application/javascript', body: '' }));
}

/** What Telegram's widget does once the user approves: calls the console's `data-onauth` with the signed fields. */
export async function widgetCallback(page: Page, auth: Record<string, string>): Promise<void> {
  await page.evaluate((fields) => (window as unknown as { mgTelegramAuth: (a: Record<string, string>) => void }).mgTelegramAuth(fields), auth);
}

