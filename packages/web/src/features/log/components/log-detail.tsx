import type { ReactNode } from 'react';
import { explainCharge, formatQuota, formatQuotaIn, parseLogOther, usedChannels, type ChargeExplanation } from '@modelgate/shared';
import { Typography } from 'antd';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import type { LogEntry } from '../api';
import { formatRatio } from '../log-other';

/** The cached and audio parts of a ratio-mode bill, written inside the formula's parentheses. */
function extraTerms(t: TFunction<'log'>, bill: Extract<ChargeExplanation, { mode: 'ratio' }>): string {
  const { cached, audioIn, audioOut } = bill.terms;
  let terms = '';
  if (cached) terms += t('detail.cacheTerm', { cached, cacheRatio: formatRatio(bill.cacheRatio) });
  if (audioIn || audioOut) {
    terms += t('detail.audioTerm', {
      audioIn,
      audioOut,
      audioRatio: formatRatio(bill.audioRatio),
      audioCompletionRatio: formatRatio(bill.audioCompletionRatio),
    });
  }
  return terms;
}

/**
 * The expanded row: how the charge of a consume row came about, from its `other` JSON, recomputed
 * with the cost formula the relay billed with (@modelgate/shared `explainCharge`).
 */
export function LogDetail({ entry, admin }: { entry: LogEntry; admin: boolean }) {
  const { t } = useTranslation('log');
  const { quotaDisplay } = useStatus();
  const other = parseLogOther(entry.other);
  const bill = explainCharge(entry.model_name, entry, other, quotaDisplay.quotaPerUnit);
  const items: { key: string; label: string; value: ReactNode }[] = [];
  const add = (key: string, value: ReactNode) => items.push({ key, label: t(`detail.${key}`), value });

  if (bill.mode === 'price') {
    add('modelPrice', `$${formatRatio(bill.price)}`);
    add('groupRatio', formatRatio(bill.groupRatio));
  } else if (bill.mode === 'video') {
    add('videoSeconds', t('detail.secondsValue', { value: bill.seconds }));
    add('videoResolution', bill.resolution);
    add('videoPrice', `$${formatRatio(bill.usdPerSecond)}`);
    add('groupRatio', formatRatio(bill.groupRatio));
  } else {
    add('modelRatio', formatRatio(bill.modelRatio));
    add('completionRatio', formatRatio(bill.completionRatio));
    add('groupRatio', formatRatio(bill.groupRatio));
  }
  if (bill.mode !== 'video') {
    add('promptTokens', entry.prompt_tokens);
    add('completionTokens', entry.completion_tokens);
  }
  if (typeof other.cache_tokens === 'number') add('cacheTokens', `${other.cache_tokens} × ${formatRatio(Number(other.cache_ratio ?? 1))}`);
  if (typeof other.reasoning_tokens === 'number') add('reasoningTokens', other.reasoning_tokens);
  if (other.audio) {
    add('textInput', other.text_input ?? 0);
    add('textOutput', other.text_output ?? 0);
    add('audioInput', other.audio_input ?? 0);
    add('audioOutput', other.audio_output ?? 0);
    add('audioRatio', formatRatio(Number(other.audio_ratio ?? 1)));
    add('audioCompletionRatio', formatRatio(Number(other.audio_completion_ratio ?? 1)));
  }
  if (typeof other.frt === 'number' && other.frt > 0) add('frt', t('detail.ms', { value: other.frt }));
  if (other.ws) add('ws', t('detail.yes'));
  const chain = usedChannels(other);
  if (admin && chain.length) add('useChannel', chain.join(' → '));

  const terms = bill.mode === 'ratio' ? extraTerms(t, bill) : '';
  const money = (quota: number) => formatQuotaIn('usd', quota, { quotaPerUnit: quotaDisplay.quotaPerUnit, digits: 6 });
  const formula =
    bill.mode === 'video'
      ? t('detail.videoFormula', { seconds: bill.seconds, price: formatRatio(bill.usdPerSecond), resolution: bill.resolution, group: formatRatio(bill.groupRatio), cost: money(bill.quota) })
      : bill.mode === 'price'
      ? t('detail.priceFormula', {
          price: formatRatio(bill.price),
          group: formatRatio(bill.groupRatio),
          cost: money(bill.quota),
        })
      : t(terms ? 'detail.ratioFormulaTerms' : 'detail.ratioFormula', {
          prompt: bill.terms.textIn,
          completion: bill.terms.textOut,
          completionRatio: formatRatio(bill.completionRatio),
          terms,
          modelRatio: formatRatio(bill.modelRatio),
          group: formatRatio(bill.groupRatio),
          units: bill.quota,
          // The ledger charges what the user could pay, so the charge is the row's own quota.
          charged: formatQuota(entry.quota, quotaDisplay, 6),
        });

  return (
    <div className="mg-log-detail" data-testid="log-detail">
      {/* A flex list, not Descriptions: a table inside the scrolling table's expanded row blew its width up. */}
      <dl className="mg-log-facts">
        {items.map((item) => (
          <div key={item.key} className="mg-log-fact">
            <dt>{item.label}</dt>
            <dd data-field={item.key}>{item.value}</dd>
          </div>
        ))}
      </dl>
      <Typography.Text type="secondary" data-testid="log-formula">
        {t('detail.formula', { formula })}
      </Typography.Text>
      {entry.content && (
        <div>
          <Typography.Text type="secondary" className="mg-small">
            {entry.content}
          </Typography.Text>
        </div>
      )}
    </div>
  );
}
