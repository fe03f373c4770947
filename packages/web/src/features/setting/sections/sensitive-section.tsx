import { OptionSectionCard, type FieldDef } from './option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'CheckSensitiveEnabled', kind: 'switch' },
  { key: 'CheckSensitiveOnPromptEnabled', kind: 'switch' },
  { key: 'CheckSensitiveOnCompletionEnabled', kind: 'switch' },
  { key: 'StopOnSensitiveEnabled', kind: 'switch' },
  { key: 'StreamCacheQueueLength', kind: 'number', min: 0 },
  { key: 'SensitiveWords', kind: 'textarea' },
];

/** Operation → sensitive-word filter (reference §12): switches and the word list, one per line. */
export function SensitiveSection() {
  return <OptionSectionCard name="sensitive" fields={FIELDS} />;
}
