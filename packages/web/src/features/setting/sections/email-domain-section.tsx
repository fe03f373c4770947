import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'EmailDomainRestrictionEnabled', kind: 'switch' },
  { key: 'EmailAliasRestrictionEnabled', kind: 'switch' },
  { key: 'EmailDomainWhitelist', kind: 'list' },
];

/** System → which e-mail domains may register. */
export function EmailDomainSection() {
  return <OptionSectionCard name="emailDomain" fields={FIELDS} />;
}
