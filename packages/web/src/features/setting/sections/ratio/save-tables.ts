import { useQueryClient } from '@tanstack/react-query';
import { serverMessage } from '@modelgate/shared';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../../lib/api';
import { showError, showSuccess, toast } from '../../../../lib/feedback';
import { OPTION_REGISTRY } from '@modelgate/shared';
import { checkOption, optionKeys, saveOption, type OptionMap } from '../../../../lib/options';
import { pricingKeys } from '../../../pricing/api';
import { RATIO_KEYS, type RatioKey } from './ratio-tables';

/** A map's content regardless of key order (a stored value that does not parse counts as changed). */
function canonical(text: string): string {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return text;
    return JSON.stringify(Object.entries(parsed).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  } catch {
    return text;
  }
}

/**
 * Saves the changed ones of the pricing options: every value checked with the server's rules
 * first (so nothing is sent unless all of it can be stored), stored pretty-printed, and the
 * option and pricing caches refreshed afterwards.
 */
export function useSaveTables(options: OptionMap) {
  const { t, i18n } = useTranslation('pricing');
  const queryClient = useQueryClient();
  const [saving, setSaving] = useState(false);
  const lang = i18n.language?.startsWith('en') ? 'en' : 'zh';

  async function save(texts: Record<RatioKey, string>): Promise<boolean> {
    const checked: Array<[RatioKey, string]> = [];
    for (const key of RATIO_KEYS) {
      const result = checkOption(options, key, texts[key]);
      if (!result.ok) {
        const detail = result.detail && result.detail !== key ? ` (${result.detail})` : '';
        showError(`${t(`editor.field.${key}`)}: ${serverMessage(result.code, lang)}${detail}`);
        return false;
      }
      const value = JSON.stringify(JSON.parse(result.value), null, 2);
      // A key the server did not list holds its default, as the editors show it.
      if (canonical(value) !== canonical(options[key] ?? OPTION_REGISTRY[key].default)) checked.push([key, value]);
    }
    if (checked.length === 0) {
      void toast().info(t('editor.unchanged'));
      return false;
    }
    setSaving(true);
    let ok = true;
    try {
      for (const [key, value] of checked) {
        try {
          await saveOption(key, value, true);
        } catch (error) {
          showError(`${t(`editor.field.${key}`)}: ${error instanceof ApiError ? error.message : String(error)}`);
          ok = false;
          break;
        }
      }
    } finally {
      setSaving(false);
      await Promise.all([queryClient.invalidateQueries({ queryKey: optionKeys.all }), queryClient.invalidateQueries({ queryKey: pricingKeys.all })]);
    }
    if (ok) showSuccess(t('editor.saved'));
    return ok;
  }

  return { save, saving };
}
