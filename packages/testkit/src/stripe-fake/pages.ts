import type { FakeStripeSession } from './types.js';

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>${escape(title)}</title>
<style>body{font-family:sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}dt{color:#666}dd{margin:0 0 .75rem}button{font-size:1rem;padding:.5rem 1.5rem}</style>
</head><body>${body}</body></html>`;
}

/** The hosted Checkout page: what is bought, the total, a Pay button and the way back. */
export function checkoutPage(s: FakeStripeSession, total: string): string {
  return page(
    'Fake Stripe Checkout',
    `<h1>Fake Stripe Checkout</h1>
<dl><dt>Item</dt><dd data-field="name">${escape(s.name)}</dd>
<dt>Total</dt><dd data-field="amount">${escape(total)}</dd>
<dt>Reference</dt><dd data-field="reference">${escape(s.client_reference_id ?? '')}</dd></dl>
<form method="post" action="/c/pay/${escape(s.id)}"><button type="submit">Pay</button></form>
${s.cancel_url ? `<p><a href="${escape(s.cancel_url)}">Cancel</a></p>` : ''}`,
  );
}

export function closedPage(message: string): string {
  return page('Fake Stripe Checkout', `<h1>Checkout</h1><p data-field="error">${escape(message)}</p>`);
}
