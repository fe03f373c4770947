import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'DrawingEnabled', kind: 'switch' },
  { key: 'TaskEnabled', kind: 'switch' },
  { key: 'MjNotifyEnabled', kind: 'switch' },
  { key: 'MjAccountFilterEnabled', kind: 'switch' },
  { key: 'MjForwardUrlEnabled', kind: 'switch' },
  { key: 'MjModeClearEnabled', kind: 'switch' },
  { key: 'MjActionCheckSuccessEnabled', kind: 'switch' },
];

/** Operation → drawing: Midjourney and async-task switches (reference §9). */
export function DrawingSection() {
  return <OptionSectionCard name="drawing" fields={FIELDS} />;
}
