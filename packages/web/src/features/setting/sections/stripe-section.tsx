import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'StripeTopUpEnabled', kind: 'switch' },
  { key: 'StripeApiSecret', kind: 'secret' },
  { key: 'StripeWebhookSecret', kind: 'secret' },
  { key: 'StripeUnitPrice', kind: 'number', min: 0, step: 0.01 },
  { key: 'StripeCurrency', kind: 'text' },
  { key: 'StripeMinTopUp', kind: 'number', min: 1 },
  { key: 'StripeAmountOptions', kind: 'json' },
  { key: 'StripeApiBase', kind: 'text' },
];

/** System → Stripe top-up (issue 33); like the other payment settings, the server address comes first. */
export function StripeSection() {
  return <OptionSectionCard name="stripe" fields={FIELDS} />;
}
