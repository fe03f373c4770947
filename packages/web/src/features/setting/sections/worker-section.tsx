import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'WorkerUrl', kind: 'text' },
  { key: 'WorkerValidKey', kind: 'secret' },
  { key: 'OutboundAllowedRanges', kind: 'list' },
];

/** System → worker proxy: where image and file downloads go, and which private ranges they may reach. */
export function WorkerSection() {
  return <OptionSectionCard name="worker" fields={FIELDS} />;
}
