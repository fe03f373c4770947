import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'PayAddress', kind: 'text' },
  { key: 'EpayId', kind: 'text' },
  { key: 'EpayKey', kind: 'secret' },
  { key: 'CustomCallbackAddress', kind: 'text' },
  { key: 'Price', kind: 'number', min: 0, step: 0.1 },
  { key: 'MinTopUp', kind: 'number', min: 0 },
  { key: 'TopupGroupRatio', kind: 'json' },
];

/** System → payment (online top-up); the server address must be saved first (spec §5). */
export function PaymentSection() {
  return <OptionSectionCard name="payment" fields={FIELDS} />;
}
