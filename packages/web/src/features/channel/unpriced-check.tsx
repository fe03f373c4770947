import type { TFunction } from 'i18next';
import { call } from '../../lib/api';
import { modal } from '../../lib/feedback';

/** How many names the warning lists before "and N more" (a pasted list can be long). */
const LISTED = 20;

/**
 * The channel's models the relay would refuse for want of a price (issue 35: they saved without a
 * word and then failed). A failed check never blocks saving: the warning is a help, not a gate.
 */
export async function modelsWithoutRatio(models: string): Promise<string[]> {
  const names = models.split(',').map((m) => m.trim()).filter(Boolean);
  if (names.length === 0) return [];
  try {
    const data = await call('POST /api/channel/unpriced_models', { body: { models: names }, silent: true });
    return Array.isArray(data) ? data : [];
  } catch {
    return [];
  }
}

/**
 * Asks whether to save anyway, listing the unpriced models and where prices are set: the ratio
 * settings for root, the pricing page otherwise (opened in a new tab so the form is kept).
 */
export function confirmSaveWithoutRatio(models: string[], t: TFunction<'channel'>, root: boolean): Promise<boolean> {
  const shown = models.slice(0, LISTED);
  const more = models.length - shown.length;
  return new Promise<boolean>((resolve) => {
    modal().confirm({
      title: t('unpriced.title'),
      width: 520,
      okText: t('unpriced.saveAnyway'),
      cancelText: t('unpriced.back'),
      content: (
        <div data-testid="unpriced-models">
          <p>{t('unpriced.body', { count: models.length })}</p>
          <p className="mg-unpriced-list">
            <code>{shown.join(', ')}</code>
            {more > 0 ? ` ${t('unpriced.more', { count: more })}` : ''}
          </p>
          <a href={root ? '/setting?tab=operation' : '/pricing'} target="_blank" rel="noreferrer">
            {root ? t('unpriced.linkRatios') : t('unpriced.linkPricing')}
          </a>
        </div>
      ),
      onOk: () => resolve(true),
      onCancel: () => resolve(false),
    });
  });
}
