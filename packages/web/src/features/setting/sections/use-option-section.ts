import { useQuery, useQueryClient } from '@tanstack/react-query';
import { OPTION_REGISTRY, isSecretOption, serverMessage, type OptionKey } from '@modelgate/shared';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { statusQueryKey } from '../../../app/status';
import { ApiError } from '../../../lib/api';
import { showError, showSuccess, toast } from '../../../lib/feedback';
import { checkOption, fetchOptions, optionKeys, saveOption, type OptionMap } from '../../../lib/options';

/** A field's value in a form: switches are booleans, everything else the option's text. */
export type FieldValue = string | boolean;

/** A check of the section's values beyond the per-key rules (e.g. duplicate group names); a message or null. */
export type SectionCheck = (values: Record<OptionKey, FieldValue>) => string | null;

export interface OptionSectionApi {
  loading: boolean;
  saving: boolean;
  options: OptionMap;
  value: (key: OptionKey) => FieldValue;
  set: (key: OptionKey, value: FieldValue) => void;
  dirty: boolean;
  save: () => Promise<boolean>;
}

const isSwitch = (key: OptionKey) => OPTION_REGISTRY[key].kind === 'bool';

function loaded(options: OptionMap, key: OptionKey): FieldValue {
  // Secrets never come back from the server: an empty field means "keep the stored one".
  if (isSecretOption(key)) return '';
  const raw = options[key] ?? OPTION_REGISTRY[key].default;
  return isSwitch(key) ? raw === 'true' : raw;
}

const asText = (value: FieldValue) => (typeof value === 'boolean' ? String(value) : value);

/**
 * Load, edit and save one settings section's keys (spec §5 save rules). Every changed key is
 * checked with the server's own rules first, against the other options as they will be after the
 * save, so nothing is sent unless all of it can be stored; settings are saved before the switches
 * that need them, JSON is stored pretty-printed, and the status cache is refreshed afterwards.
 */
export function useOptionSection(keys: readonly OptionKey[], check?: SectionCheck): OptionSectionApi {
  const { t, i18n } = useTranslation('setting');
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: optionKeys.all, queryFn: fetchOptions });
  const options = query.data ?? {};
  const [edits, setEdits] = useState<Partial<Record<OptionKey, FieldValue>>>({});
  const [saving, setSaving] = useState(false);

  const value = (key: OptionKey): FieldValue => edits[key] ?? loaded(options, key);
  const changed = keys.filter((key) => key in edits && edits[key] !== loaded(options, key));
  const label = (key: OptionKey) => t(`option.${key}.label`);
  const lang = i18n.language?.startsWith('en') ? 'en' : 'zh';

  async function save(): Promise<boolean> {
    if (changed.length === 0) {
      void toast().info(t('section.unchanged'));
      return false;
    }
    const all = Object.fromEntries(keys.map((key) => [key, value(key)])) as Record<OptionKey, FieldValue>;
    const problem = check?.(all);
    if (problem) {
      showError(problem);
      return false;
    }
    const pending: OptionMap = { ...options };
    for (const key of changed) pending[key] = asText(value(key));
    const stored: Array<[OptionKey, string]> = [];
    for (const key of changed) {
      const result = checkOption(pending, key, pending[key]);
      if (!result.ok) {
        const detail = result.detail && result.detail !== key ? ` (${result.detail})` : '';
        showError(`${label(key)}: ${serverMessage(result.code, lang)}${detail}`);
        return false;
      }
      const pretty = OPTION_REGISTRY[key].kind === 'json' ? JSON.stringify(JSON.parse(result.value), null, 2) : result.value;
      stored.push([key, pretty]);
    }
    // A sign-in switch is refused while its settings are empty, so the settings go first.
    stored.sort(([a], [b]) => Number(isSwitch(a)) - Number(isSwitch(b)));

    setSaving(true);
    let failed = false;
    const done: OptionKey[] = [];
    try {
      for (const [key, text] of stored) {
        try {
          await saveOption(key, text, true);
          done.push(key);
        } catch (error) {
          showError(`${label(key)}: ${error instanceof ApiError ? error.message : String(error)}`);
          failed = true;
          break;
        }
      }
    } finally {
      setSaving(false);
    }
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: optionKeys.all }),
      queryClient.invalidateQueries({ queryKey: statusQueryKey }),
    ]);
    setEdits((current) => {
      const next = { ...current };
      for (const key of done) delete next[key];
      return next;
    });
    if (!failed) showSuccess(t('section.saved'));
    return !failed;
  }

  return {
    loading: query.isPending,
    saving,
    options,
    value,
    set: (key, next) => setEdits((current) => ({ ...current, [key]: next })),
    dirty: changed.length > 0,
    save,
  };
}
