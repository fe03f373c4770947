import { consoleApi, expect, login, loginAsRoot, test, tr, uniqueName, useLanguage, type Lang } from './fixtures';

const SMTP_PORT = process.env.E2E_SMTP_PORT;
const MAILBOX = `http://127.0.0.1:${process.env.E2E_SMTP_HTTP_PORT}/messages`;

interface Mail {
  to: string[];
  subject: string;
  text: string;
}

for (const lang of ['zh', 'en'] as Lang[]) {
  test(`a user who forgot the password resets it by email and logs in with the new one (${lang})`, async ({ page, browser }) => {
    const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);
    await useLanguage(page, lang);
    await loginAsRoot(page, lang);
    const base = new URL(page.url()).origin;
    // Set-up through the API: SMTP pointed at the capture server, and a user with an email.
    for (const [key, value] of Object.entries({ SMTPServer: '127.0.0.1', SMTPPort: String(SMTP_PORT), SMTPFrom: 'noreply@example.com', ServerAddress: base })) {
      await consoleApi(page, 'PUT', '/api/option/', { key, value });
    }
    const username = uniqueName('rs');
    const email = `${username}@example.com`;
    await consoleApi(page, 'POST', '/api/user/', { username, password: 'password123', display_name: username });
    const found = await consoleApi<{ items: Array<{ id: number }> }>(page, 'GET', `/api/user/search?keyword=${username}`);
    await consoleApi(page, 'PUT', '/api/user/', { id: found.items[0]!.id, email });

    // As a visitor: ask for the reset mail.
    const visitor = await browser.newPage();
    await useLanguage(visitor, lang);
    await visitor.goto('/reset');
    await visitor.getByLabel(t('auth:register.email')).fill(email);
    await visitor.getByRole('button', { name: t('auth:reset.submit'), exact: true }).click();
    await expect(visitor.getByText(t('auth:reset.sent'))).toBeVisible();
    // The 30-second countdown replaces the button text.
    await expect(visitor.getByRole('button', { name: new RegExp(t('auth:reset.retryIn', { seconds: '\\d+' }).replace(/[()]/g, '\\$&')) })).toBeDisabled();

    let mail: Mail | undefined;
    await expect
      .poll(async () => {
        const list = (await (await visitor.request.get(MAILBOX)).json()) as Mail[];
        mail = list.find((m) => m.to.includes(email));
        return !!mail;
      }, { timeout: 10_000 })
      .toBe(true);
    const link = new RegExp(`${base.replace(/[.:/]/g, '\\$&')}/user/reset\\?email=[^\\s&]+&token=[0-9a-f]{32}`).exec(mail!.text)![0];

    // The link opens the confirm screen, which shows the new password.
    await visitor.goto(link);
    await expect(visitor.getByText(t('auth:resetConfirm.title'))).toBeVisible();
    await visitor.getByRole('button', { name: t('auth:resetConfirm.submit'), exact: true }).click();
    const field = visitor.getByTestId('new-password');
    await expect(field).toHaveValue(/^[0-9a-zA-Z]{12}$/);
    const newPassword = await field.inputValue();

    // The new password signs the user in.
    await login(visitor, lang, username, newPassword);
    await visitor.close();
  });
}
