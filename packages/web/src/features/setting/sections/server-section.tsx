import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'ServerAddress', kind: 'text' },
];

/** System → the address this deployment is reached at (payment callbacks, OAuth, chat links). */
export function ServerSection() {
  return <OptionSectionCard name="server" fields={FIELDS} />;
}
