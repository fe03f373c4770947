import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'SystemName', kind: 'text' },
  { key: 'Logo', kind: 'text' },
];

/** Other → system name and logo (header, page title, e-mails). */
export function BrandingSection() {
  return <OptionSectionCard name="branding" fields={FIELDS} />;
}
