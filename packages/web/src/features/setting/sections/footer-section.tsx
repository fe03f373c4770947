import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'Footer', kind: 'textarea' },
];

/** Other → the footer (Markdown or HTML, sanitised); empty shows the default credit line. */
export function FooterSection() {
  return <OptionSectionCard name="footer" fields={FIELDS} />;
}
