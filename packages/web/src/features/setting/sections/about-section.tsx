import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'About', kind: 'textarea' },
];

/** Other → the about page: Markdown, or an https URL shown in a frame. */
export function AboutSection() {
  return <OptionSectionCard name="about" fields={FIELDS} />;
}
