/** A Checkout Session as the fake keeps it (the fields Stripe's Session object has that ModelGate reads). */
export interface FakeStripeSession {
  id: string;
  object: 'checkout.session';
  mode: string;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid';
  amount_total: number;
  currency: string;
  client_reference_id: string | null;
  customer_email: string | null;
  metadata: Record<string, string>;
  success_url: string;
  cancel_url: string | null;
  /** The hosted payment page (the fake's own `/c/pay/<id>`). */
  url: string;
  payment_intent: string | null;
  /** What the PaymentIntent will carry (`payment_intent_data[metadata]`). */
  payment_intent_metadata: Record<string, string>;
  /** The product name of the first line item. */
  name: string;
  created: number;
  /** The charge made when it was paid. */
  charge: string | null;
}

export interface FakeStripeOptions {
  /** The secret API key the SDK must send (Bearer); default `sk_test_fake`. */
  apiKey?: string;
  /** The webhook endpoint's signing secret; default `whsec_fake`. */
  webhookSecret?: string;
  /** Where events are POSTed (the site's `/api/stripe/webhook`); settable later with `setWebhookUrl`. */
  webhookUrl?: string;
  port?: number;
  host?: string;
}

/** How one event is delivered. */
export interface DeliverOptions {
  /** Sign with another secret (a forger's). */
  forgeSignature?: boolean;
  /** The signature's timestamp (Unix seconds); default now. */
  timestamp?: number;
  /** Deliver it this many times, one after another (or at once with `concurrent`). */
  times?: number;
  concurrent?: boolean;
  /** Send this body instead of the event (signed as sent). */
  tamper?: (payload: string) => string;
}

export interface FakeStripeEvent {
  id: string;
  object: 'event';
  type: string;
  created: number;
  livemode: false;
  api_version: string;
  pending_webhooks: number;
  request: { id: null; idempotency_key: null };
  data: { object: Record<string, unknown> };
}

export interface Delivery {
  event: string;
  type: string;
  status: number;
  body: string;
}

/** A request to the fake's API (`/v1/...`). */
export interface FakeStripeRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface FakeStripe {
  url: string;
  port: number;
  apiKey: string;
  webhookSecret: string;
  sessions: FakeStripeSession[];
  deliveries: Delivery[];
  requests: FakeStripeRequest[];
  setWebhookUrl(url: string): void;
  session(id: string): FakeStripeSession;
  /** The session made for a ModelGate order (its `client_reference_id`). */
  sessionFor(tradeNo: string): FakeStripeSession;
  /** Pays the session as the hosted page's button does and delivers `checkout.session.completed`. */
  pay(sessionId: string, o?: DeliverOptions): Promise<Delivery[]>;
  /** The events of a session: a completed checkout, a (partial) refund of its charge, a dispute. */
  completedEvent(sessionId: string, override?: Record<string, unknown>): FakeStripeEvent;
  refundEvent(sessionId: string, o?: { amount?: number }): FakeStripeEvent;
  disputeEvent(sessionId: string, o?: { reason?: string }): FakeStripeEvent;
  deliver(event: FakeStripeEvent, o?: DeliverOptions): Promise<Delivery[]>;
  /** A `Stripe-Signature` header for `payload` (`t=…,v1=…`, HMAC-SHA256 of `t.payload`). */
  signature(payload: string, o?: { timestamp?: number; secret?: string }): string;
  close(): Promise<void>;
}
