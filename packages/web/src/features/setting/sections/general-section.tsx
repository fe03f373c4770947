import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'TopUpLink', kind: 'text' },
  { key: 'ChatLink', kind: 'text' },
  { key: 'ChatLink2', kind: 'text' },
  { key: 'QuotaPerUnit', kind: 'number', min: 1 },
  { key: 'RetryTimes', kind: 'number', min: 0 },
  { key: 'ChannelAffinityEnabled', kind: 'switch' },
  { key: 'ChannelAffinityTtlSeconds', kind: 'number', min: 60 },
  { key: 'DisplayInCurrencyEnabled', kind: 'switch' },
  { key: 'DisplayTokenStatEnabled', kind: 'switch' },
  { key: 'DefaultCollapseSidebar', kind: 'switch' },
];

/** Operation → general: links, the quota unit, retries, channel affinity and display switches. */
export function GeneralSection() {
  return <OptionSectionCard name="general" fields={FIELDS} />;
}
