import i18n from '../i18n';
import { modal, showSuccess } from './feedback';

/**
 * Copies text and toasts `successText`. Without clipboard access (plain http, denied permission)
 * the text is shown in a dialog so the user can copy it by hand, as spec §8 requires.
 */
export async function copyText(text: string, successText?: string): Promise<boolean> {
  try {
    if (!navigator.clipboard) throw new Error('clipboard unavailable');
    await navigator.clipboard.writeText(text);
    showSuccess(successText ?? i18n.t('common:copy.done'));
    return true;
  } catch {
    modal().info({
      title: i18n.t('common:copy.manualTitle'),
      content: text,
      okText: i18n.t('common:action.close'),
    });
    return false;
  }
}
