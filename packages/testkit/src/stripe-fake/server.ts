import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody, serveFake } from '../http-fake.js';
import { checkoutPage, closedPage } from './pages.js';
import { parseStripeForm, stripeSignature } from './wire.js';
import type { Delivery, FakeStripe, FakeStripeEvent, FakeStripeOptions, FakeStripeRequest, FakeStripeSession } from './types.js';

const API_VERSION = '2025-10-29.clover';
const ZERO_DECIMAL = new Set(['jpy', 'krw', 'vnd', 'clp']);

const id = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') }).end(JSON.stringify(body));
}

/** Stripe's error object (`{error: {type, message, param}}`). */
function apiError(res: ServerResponse, status: number, message: string, param?: string): void {
  json(res, status, { error: { type: 'invalid_request_error', message, ...(param ? { param } : {}) } });
}

function html(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body);
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const record = (v: unknown): Record<string, string> =>
  v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string')) : {};

/**
 * A loopback Stripe for the Checkout Session flow, as Stripe documents it: `POST
 * /v1/checkout/sessions` (form-encoded, Bearer secret key, Idempotency-Key honoured) answers the
 * session with its hosted page `url`; `GET /v1/checkout/sessions/:id` and `GET
 * /v1/payment_intents/:id` read them back. The hosted page offers "Pay": paying completes the
 * session, delivers `checkout.session.completed` to the webhook URL with a real `Stripe-Signature`
 * header and sends the browser to `success_url`. Tests also deliver refunds, disputes, replays,
 * concurrent and forged deliveries.
 */
export async function startFakeStripe(opts: FakeStripeOptions = {}): Promise<FakeStripe> {
  const apiKey = opts.apiKey ?? 'sk_test_fake';
  const webhookSecret = opts.webhookSecret ?? 'whsec_fake';
  let webhookUrl = opts.webhookUrl ?? '';
  const sessions: FakeStripeSession[] = [];
  const deliveries: Delivery[] = [];
  const requests: FakeStripeRequest[] = [];
  const byIdempotencyKey = new Map<string, FakeStripeSession>();
  let base = '';

  const money = (amount: number, currency: string) => (ZERO_DECIMAL.has(currency) ? `${amount} ${currency.toUpperCase()}` : `${(amount / 100).toFixed(2)} ${currency.toUpperCase()}`);

  const session = (sid: string): FakeStripeSession => {
    const s = sessions.find((x) => x.id === sid);
    if (!s) throw new Error(`fake stripe: no session ${sid}`);
    return s;
  };

  const createSession = (f: Record<string, unknown>): FakeStripeSession | string => {
    if (f.mode !== 'payment') return 'mode: only `payment` sessions are supported by the fake';
    if (!str(f.success_url)) return 'success_url: required';
    const items = Array.isArray(f.line_items) ? (f.line_items as Array<Record<string, unknown>>) : [];
    if (!items.length) return 'line_items: required';
    let total = 0;
    let currency = '';
    let name = '';
    for (const item of items) {
      const pd = (item.price_data ?? {}) as Record<string, unknown>;
      const unit = Number(pd.unit_amount);
      const quantity = Number(item.quantity ?? 1);
      const product = (pd.product_data ?? {}) as Record<string, unknown>;
      if (!str(pd.currency) || !Number.isSafeInteger(unit) || unit < 1 || !Number.isSafeInteger(quantity) || quantity < 1 || !str(product.name)) {
        return 'line_items[price_data]: currency, a positive whole unit_amount and product_data[name] are required';
      }
      if (currency && currency !== pd.currency) return 'line_items: one currency per session';
      currency = String(pd.currency).toLowerCase();
      name ||= String(product.name);
      total += unit * quantity;
    }
    const sid = id('cs');
    const s: FakeStripeSession = {
      id: sid,
      object: 'checkout.session',
      mode: 'payment',
      status: 'open',
      payment_status: 'unpaid',
      amount_total: total,
      currency,
      client_reference_id: str(f.client_reference_id),
      customer_email: str(f.customer_email),
      metadata: record(f.metadata),
      success_url: String(f.success_url),
      cancel_url: str(f.cancel_url),
      url: `${base}/c/pay/${sid}`,
      payment_intent: null,
      payment_intent_metadata: record((f.payment_intent_data as Record<string, unknown> | undefined)?.metadata),
      name,
      created: now(),
      charge: null,
    };
    sessions.push(s);
    return s;
  };

  /** The session as the API answers it (without the fake's own bookkeeping). */
  const sessionObject = (s: FakeStripeSession): Record<string, unknown> => {
    const { payment_intent_metadata: _m, name: _n, charge: _c, ...rest } = s;
    return { ...rest, success_url: s.success_url, payment_method_types: ['card'] };
  };

  const intentObject = (s: FakeStripeSession): Record<string, unknown> => ({
    id: s.payment_intent,
    object: 'payment_intent',
    amount: s.amount_total,
    amount_received: s.payment_status === 'paid' ? s.amount_total : 0,
    currency: s.currency,
    metadata: s.payment_intent_metadata,
    status: s.payment_status === 'paid' ? 'succeeded' : 'requires_payment_method',
    latest_charge: s.charge,
  });

  const event = (type: string, object: Record<string, unknown>): FakeStripeEvent => ({
    id: id('evt'),
    object: 'event',
    type,
    created: now(),
    livemode: false,
    api_version: API_VERSION,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    data: { object },
  });

  const paidIds = (s: FakeStripeSession) => {
    s.payment_intent ??= id('pi');
    s.charge ??= id('ch');
    return { pi: s.payment_intent, ch: s.charge };
  };

  async function post(payload: string, header: string): Promise<{ status: number; body: string }> {
    try {
      const res = await fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': header, 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' }, body: payload });
      return { status: res.status, body: await res.text() };
    } catch (err) {
      return { status: 0, body: err instanceof Error ? err.message : String(err) };
    }
  }

  const fake: FakeStripe = {
    url: '',
    port: 0,
    apiKey,
    webhookSecret,
    sessions,
    deliveries,
    requests,
    setWebhookUrl(url) {
      webhookUrl = url;
    },
    session,
    sessionFor(tradeNo) {
      const s = sessions.find((x) => x.client_reference_id === tradeNo);
      if (!s) throw new Error(`fake stripe: no session for ${tradeNo}`);
      return s;
    },
    async pay(sid, o) {
      const s = session(sid);
      paidIds(s);
      s.status = 'complete';
      s.payment_status = 'paid';
      return fake.deliver(fake.completedEvent(sid), o);
    },
    completedEvent(sid, override = {}) {
      const s = session(sid);
      const { pi } = paidIds(s);
      return event('checkout.session.completed', { ...sessionObject(s), status: 'complete', payment_status: 'paid', payment_intent: pi, ...override });
    },
    refundEvent(sid, o = {}) {
      const s = session(sid);
      const { pi, ch } = paidIds(s);
      const refunded = o.amount ?? s.amount_total;
      // Charge metadata is the charge's own: Stripe does not copy the PaymentIntent's onto it.
      return event('charge.refunded', {
        id: ch,
        object: 'charge',
        amount: s.amount_total,
        amount_captured: s.amount_total,
        amount_refunded: refunded,
        refunded: refunded >= s.amount_total,
        currency: s.currency,
        payment_intent: pi,
        metadata: {},
        paid: true,
        status: 'succeeded',
      });
    },
    disputeEvent(sid, o = {}) {
      const s = session(sid);
      const { pi, ch } = paidIds(s);
      return event('charge.dispute.created', {
        id: id('dp'),
        object: 'dispute',
        amount: s.amount_total,
        currency: s.currency,
        charge: ch,
        payment_intent: pi,
        metadata: {},
        reason: o.reason ?? 'fraudulent',
        status: 'needs_response',
      });
    },
    async deliver(ev, o = {}) {
      if (!webhookUrl) throw new Error('fake stripe: no webhook URL');
      const body = JSON.stringify(ev, null, 2);
      const payload = o.tamper ? o.tamper(body) : body;
      const header = stripeSignature(payload, o.forgeSignature ? `${webhookSecret}-forged` : webhookSecret, o.timestamp);
      const times = o.times ?? 1;
      const one = async (): Promise<Delivery> => {
        const r = await post(payload, header);
        const d = { event: ev.id, type: ev.type, status: r.status, body: r.body };
        deliveries.push(d);
        return d;
      };
      if (o.concurrent) return Promise.all(Array.from({ length: times }, one));
      const out: Delivery[] = [];
      for (let i = 0; i < times; i++) out.push(await one());
      return out;
    },
    signature: (payload, o = {}) => stripeSignature(payload, o.secret ?? webhookSecret, o.timestamp),
    close: async () => undefined,
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname;
    const pay = /^\/c\/pay\/([\w-]+)$/.exec(path);
    if (pay) {
      const s = sessions.find((x) => x.id === pay[1]);
      if (!s) return html(res, 404, closedPage('This checkout session does not exist.'));
      if (req.method === 'GET') {
        if (s.status !== 'open') return html(res, 410, closedPage('This checkout session is no longer open.'));
        return html(res, 200, checkoutPage(s, money(s.amount_total, s.currency)));
      }
      if (req.method === 'POST') {
        if (s.status === 'open') await fake.pay(s.id);
        res.writeHead(303, { location: s.success_url.replace('{CHECKOUT_SESSION_ID}', s.id) }).end();
        return;
      }
    }
    if (!path.startsWith('/v1/')) return json(res, 404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${path})` } });
    const body = req.method === 'POST' ? await readBody(req) : '';
    requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
    if ((req.headers.authorization ?? '') !== `Bearer ${apiKey}`) return apiError(res, 401, 'Invalid API Key provided');
    if (req.method === 'POST' && path === '/v1/checkout/sessions') {
      if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return apiError(res, 400, 'Invalid request: the body must be form-encoded');
      const key = String(req.headers['idempotency-key'] ?? '');
      const again = key ? byIdempotencyKey.get(key) : undefined;
      if (again) return json(res, 200, sessionObject(again));
      const made = createSession(parseStripeForm(body));
      if (typeof made === 'string') return apiError(res, 400, made, made.split(':')[0]);
      if (key) byIdempotencyKey.set(key, made);
      return json(res, 200, sessionObject(made));
    }
    const read = /^\/v1\/(checkout\/sessions|payment_intents)\/([\w-]+)$/.exec(path);
    if (req.method === 'GET' && read) {
      const s = read[1] === 'payment_intents' ? sessions.find((x) => x.payment_intent === read[2]) : sessions.find((x) => x.id === read[2]);
      if (!s) return apiError(res, 404, `No such ${read[1] === 'payment_intents' ? 'payment_intent' : 'checkout.session'}: '${read[2]}'`, 'id');
      return json(res, 200, read[1] === 'payment_intents' ? intentObject(s) : sessionObject(s));
    }
    return apiError(res, 404, `Unrecognized request URL (${req.method}: ${path})`);
  };

  const server = await serveFake(opts, handle, (res, err) => json(res, 500, { error: { type: 'api_error', message: String(err) } }));
  base = server.url;
  fake.url = server.url;
  fake.port = server.port;
  fake.close = server.close;
  return fake;
}
