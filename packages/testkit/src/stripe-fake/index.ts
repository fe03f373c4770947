export { startFakeStripe } from './server.js';
export { parseStripeForm, stripeSignature } from './wire.js';
export type { Delivery, DeliverOptions, FakeStripe, FakeStripeEvent, FakeStripeOptions, FakeStripeRequest, FakeStripeSession } from './types.js';
