import { useTranslation } from 'react-i18next';
import { OptionSectionCard, type FieldDef } from './option-section';
import type { FieldValue } from './use-option-section';

const FIELDS: readonly FieldDef[] = [
  { key: 'GroupRatio', kind: 'json' },
  { key: 'UserUsableGroups', kind: 'json' },
];

/**
 * The first name that appears twice as a key of a flat JSON object. `JSON.parse` keeps the last
 * duplicate silently, so a repeated group would lose its ratio without a word.
 */
export function duplicateKey(text: FieldValue): string | null {
  if (typeof text !== 'string') return null;
  const seen = new Set<string>();
  for (const match of text.matchAll(/"((?:[^"\\]|\\.)*)"\s*:/g)) {
    const name = match[1]!;
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return null;
}

/** Operation → groups: each group's price ratio, and the groups users may pick for their tokens. */
export function GroupsSection() {
  const { t } = useTranslation('setting');
  const check = (values: Record<string, FieldValue>) => {
    for (const key of ['GroupRatio', 'UserUsableGroups'] as const) {
      const name = duplicateKey(values[key] ?? '');
      if (name) return t('section.duplicateGroup', { field: t(`option.${key}.label`), name });
    }
    return null;
  };
  return <OptionSectionCard name="groups" fields={FIELDS} check={check} />;
}
