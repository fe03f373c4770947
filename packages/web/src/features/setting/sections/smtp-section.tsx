import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'SMTPServer', kind: 'text' },
  { key: 'SMTPPort', kind: 'number', min: 1 },
  { key: 'SMTPAccount', kind: 'text' },
  { key: 'SMTPFrom', kind: 'text' },
  { key: 'SMTPToken', kind: 'secret' },
  { key: 'SMTPSSLEnabled', kind: 'switch' },
];

/** System → SMTP: the mail server for verification codes, password resets and quota reminders. */
export function SmtpSection() {
  return <OptionSectionCard name="smtp" fields={FIELDS} />;
}
