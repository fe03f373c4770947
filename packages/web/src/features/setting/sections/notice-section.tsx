import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'Notice', kind: 'textarea' },
];

/** Other → the notice shown once per change on the home page (Markdown). */
export function NoticeSection() {
  return <OptionSectionCard name="notice" fields={FIELDS} />;
}
