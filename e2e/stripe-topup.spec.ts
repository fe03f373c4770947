import { startFakeStripe, type FakeStripe } from '@modelgate/testkit';
import { expect, login, register, test, tr, uniqueName, useLanguage, type Lang } from './fixtures';
import { SERVER, setOptions } from './oauth-support';

/* Card top-up through the testkit's Stripe: the wallet, Stripe's hosted page, the signed webhook, the wallet again. */

let stripe: FakeStripe;

test.beforeAll(async () => {
  stripe = await startFakeStripe({ apiKey: 'sk_test_e2e', webhookSecret: 'whsec_e2e' });
  stripe.setWebhookUrl(`${SERVER}/api/stripe/webhook`);
  await setOptions({
    ServerAddress: SERVER,
    StripeApiBase: stripe.url,
    StripeApiSecret: 'sk_test_e2e',
    StripeWebhookSecret: 'whsec_e2e',
    StripeUnitPrice: '1.5',
    StripeCurrency: 'usd',
    StripeMinTopUp: '2',
    StripeAmountOptions: '[5, 20]',
    StripeTopUpEnabled: 'true',
  });
});

test.afterAll(async () => {
  await setOptions({ StripeTopUpEnabled: 'false' });
  await stripe?.close();
});

for (const lang of ['zh', 'en'] as Lang[]) {
  test(`a user tops up by card through Stripe Checkout and sees the credit (${lang})`, async ({ page }) => {
    await useLanguage(page, lang);
    const username = uniqueName('st');
    await register(page, lang, username, 'password123');
    await login(page, lang, username, 'password123');
    await page.goto('/topup');
    const balance = page.getByTestId('wallet-balance');
    await expect(balance).toContainText('$0.00');

    const card = page.getByTestId('stripe-card');
    await expect(card).toContainText(tr(lang, 'topup:stripe.title'));
    // $20 of quota at 1.5 USD per dollar.
    await card.getByRole('button', { name: '$20', exact: true }).click();
    await expect(card.getByTestId('stripe-payable')).toContainText('30.00 USD');
    // Below the minimum: said before anything is created.
    await card.getByLabel(tr(lang, 'topup:stripe.amount')).fill('1');
    await expect(card.getByTestId('stripe-payable')).toContainText(tr(lang, 'topup:online.tooLow', { min: '$2' }));
    await card.getByRole('button', { name: '$20', exact: true }).click();
    await card.getByRole('button', { name: tr(lang, 'topup:stripe.pay') }).click();

    // Stripe's hosted page (the fake's), for exactly the quoted amount.
    await expect(page).toHaveURL(new RegExp(`^${stripe.url}/c/pay/cs_test_`));
    await expect(page.locator('[data-field="amount"]')).toHaveText('30.00 USD');
    await page.getByRole('button', { name: 'Pay' }).click();

    // Back on the wallet: the order as the server recorded it (credited by the webhook), and the balance.
    await expect(page).toHaveURL(/\/topup\?stripe=success&trade_no=USR\d+NO/);
    await expect(page.getByTestId('payment-result')).toContainText(tr(lang, 'topup:result.success', { amount: '$20.00' }));
    await expect(page.getByTestId('payment-result')).toContainText('30.00 USD');
    await expect(balance).toContainText('$20.00');
    expect(stripe.deliveries.filter((d) => d.type === 'checkout.session.completed').at(-1)?.status).toBe(200);
  });
}

test('coming back from a cancelled Stripe payment says nothing was charged (en)', async ({ page }) => {
  await useLanguage(page, 'en');
  const username = uniqueName('sc');
  await register(page, 'en', username, 'password123');
  await login(page, 'en', username, 'password123');
  await page.goto('/topup');
  const card = page.getByTestId('stripe-card');
  await card.getByRole('button', { name: '$5', exact: true }).click();
  await expect(card.getByTestId('stripe-payable')).toContainText('7.50 USD');
  await card.getByRole('button', { name: tr('en', 'topup:stripe.pay') }).click();
  await expect(page).toHaveURL(new RegExp(`^${stripe.url}/c/pay/`));
  await page.getByRole('link', { name: 'Cancel' }).click();
  await expect(page).toHaveURL(/\/topup\?stripe=cancel&trade_no=/);
  await expect(page.getByTestId('payment-result')).toContainText(tr('en', 'topup:result.cancelled'));
  await expect(page.getByTestId('wallet-balance')).toContainText('$0.00');
});
