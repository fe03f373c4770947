import type { ReactNode } from 'react';
import { Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import { formatQuota } from '../../../lib/quota';
import type { LogEntry } from '../api';
import { costBreakdown, formatDollars, formatRatio, parseOther, usedChannels } from '../log-other';

/** The expanded row: how the charge of a consume row came about, from its `other` JSON. */
export function LogDetail({ entry, admin }: { entry: LogEntry; admin: boolean }) {
  const { t } = useTranslation('log');
  const { quotaDisplay } = useStatus();
  const other = parseOther(entry.other);
  const bill = costBreakdown(entry, other, quotaDisplay.quotaPerUnit);
  const items: { key: string; label: string; value: ReactNode }[] = [];
  const add = (key: string, value: ReactNode) => items.push({ key, label: t(`detail.${key}`), value });

  if (bill.mode === 'price') {
    add('modelPrice', `$${formatRatio(bill.price)}`);
    add('groupRatio', formatRatio(bill.groupRatio));
  } else {
    add('modelRatio', formatRatio(bill.modelRatio));
    add('completionRatio', formatRatio(bill.completionRatio));
    add('groupRatio', formatRatio(bill.groupRatio));
  }
  add('promptTokens', entry.prompt_tokens);
  add('completionTokens', entry.completion_tokens);
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

  const formula =
    bill.mode === 'price'
      ? t('detail.priceFormula', {
          price: formatRatio(bill.price),
          group: formatRatio(bill.groupRatio),
          cost: formatDollars(bill.dollars),
        })
      : t('detail.ratioFormula', {
          prompt: bill.prompt,
          completion: bill.completion,
          completionRatio: formatRatio(bill.completionRatio),
          modelRatio: formatRatio(bill.modelRatio),
          group: formatRatio(bill.groupRatio),
          units: formatRatio(Number(bill.units.toFixed(4))),
          // The ledger charges whole quota units, so the charge is the row's own quota.
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
