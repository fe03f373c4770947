export interface TagFormValues {
  new_tag: string;
  priority: number | string | null;
  weight: number | string | null;
  models: string[];
  groups: string[];
  model_mapping: string;
}

export type TagFormProblem = 'noChange' | 'priority' | 'weight' | 'mapping';

export interface TagEditBody {
  tag: string;
  new_tag?: string;
  priority?: number;
  weight?: number;
  model_mapping?: string;
  models?: string;
  groups?: string;
}

const blank = (value: unknown) => value === null || value === undefined || String(value).trim() === '';

/**
 * Spec §5 tag dialog: empty fields mean "no change"; the new-tag box starts with the current tag,
 * so clearing it dissolves the tag; nothing changed is refused with '没有任何修改！'.
 */
export function buildTagEdit(tag: string, values: TagFormValues): { problem: TagFormProblem } | { edit: TagEditBody } {
  const edit: TagEditBody = { tag };
  const newTag = (values.new_tag ?? '').trim();
  if (newTag !== tag) edit.new_tag = newTag;
  if (!blank(values.priority)) {
    const text = String(values.priority).trim();
    if (!/^-?\d+$/.test(text)) return { problem: 'priority' };
    edit.priority = Number.parseInt(text, 10);
  }
  if (!blank(values.weight)) {
    const text = String(values.weight).trim();
    if (!/^\d+$/.test(text)) return { problem: 'weight' };
    edit.weight = Number.parseInt(text, 10);
  }
  const mapping = (values.model_mapping ?? '').trim();
  if (mapping) {
    try {
      JSON.parse(mapping);
    } catch {
      return { problem: 'mapping' };
    }
    edit.model_mapping = mapping;
  }
  if (values.models?.length) edit.models = values.models.join(',');
  if (values.groups?.length) edit.groups = values.groups.join(',');
  if (Object.keys(edit).length === 1) return { problem: 'noChange' };
  return { edit };
}
