import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'HomePageContent', kind: 'textarea' },
];

/** Other → the home page: Markdown, or an https URL shown in a frame. */
export function HomeContentSection() {
  return <OptionSectionCard name="homeContent" fields={FIELDS} />;
}
