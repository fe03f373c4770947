import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'QuotaForNewUser', kind: 'number', min: 0 },
  { key: 'PreConsumedQuota', kind: 'number', min: 0 },
  { key: 'QuotaForInviter', kind: 'number', min: 0 },
  { key: 'QuotaForInvitee', kind: 'number', min: 0 },
];

/** Operation → quota: gifts for new and invited users, and the default pre-consumption. */
export function QuotaSection() {
  return <OptionSectionCard name="quota" fields={FIELDS} />;
}
