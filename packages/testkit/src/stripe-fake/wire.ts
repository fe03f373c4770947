import { createHmac } from 'node:crypto';

/**
 * Stripe's form encoding (how its SDKs send every API call): nested keys in brackets,
 * `line_items[0][price_data][currency]=usd`, `metadata[trade_no]=…`; numeric segments are arrays.
 */
export function parseStripeForm(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const parts = key.replace(/\]/g, '').split('[');
    let node: Record<string, unknown> | unknown[] = root;
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      const container = node as Record<string, unknown>;
      if (last) {
        container[part] = value;
        return;
      }
      if (container[part] === undefined) container[part] = /^\d+$/.test(parts[i + 1]!) ? [] : {};
      node = container[part] as Record<string, unknown>;
    });
  }
  return root;
}

/**
 * The `Stripe-Signature` header as Stripe documents it ("Verify the events that Stripe sends"):
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<payload>" under the endpoint secret>`.
 */
export function stripeSignature(payload: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex');
  return `t=${timestamp},v1=${v1}`;
}
