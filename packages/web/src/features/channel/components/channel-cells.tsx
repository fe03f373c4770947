import { autoDisableInfo, channelStatusTag, channelTypeColor } from '@modelgate/shared';
import { InputNumber, Tag, Tooltip } from 'antd';
import dayjs from '../../../lib/dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Channel } from '../api';
import { RESPONSE_COLORS, responseBand } from '../channel-status';

const formatTime = (seconds: number) => (seconds > 0 ? dayjs.unix(seconds).format('YYYY-MM-DD HH:mm:ss') : '-');

export function TypeTag({ type }: { type: number }) {
  const { t } = useTranslation('channel');
  return <Tag color={channelTypeColor(type)}>{t(`type.${type}`, { defaultValue: t('type.unknown', { type }) })}</Tag>;
}

export function ChannelStatusTag({ channel }: { channel: Channel }) {
  const { t } = useTranslation('channel');
  const { key, color } = channelStatusTag(channel.status);
  if (key === 'unknown') return <Tag>{t('status.unknown')}</Tag>;
  if (key !== 'autoDisabled') return <Tag color={color} data-status={key}>{t(`status.${key}`)}</Tag>;
  const info = autoDisableInfo(channel);
  const tag = (
    <Tag color={color} data-status="auto-disabled" tabIndex={0}>
      {t('status.autoDisabled')}
    </Tag>
  );
  if (!info) return tag;
  return (
    <Tooltip
      title={
        <div data-testid="status-reason">
          <div>{t('status.reason', { reason: info.reason || '-' })}</div>
          <div>{t('status.time', { time: formatTime(info.time) })}</div>
        </div>
      }
    >
      {tag}
    </Tooltip>
  );
}

export function ResponseTimeTag({ channel }: { channel: Channel }) {
  const { t } = useTranslation('channel');
  const band = responseBand(channel.response_time);
  return (
    <Tooltip title={channel.test_time ? t('responseTime.testedAt', { time: formatTime(channel.test_time) }) : undefined}>
      <Tag color={RESPONSE_COLORS[band]} data-band={band}>
        {band === 'untested'
          ? t('responseTime.untested')
          : channel.response_time < 1000
            ? t('responseTime.ms', { value: channel.response_time })
            : t('responseTime.seconds', { value: (channel.response_time / 1000).toFixed(2) })}
      </Tag>
    </Tooltip>
  );
}

interface NumberCellProps {
  value: number;
  min: number;
  label: string;
  disabled?: boolean;
  onCommit: (value: number) => void;
}

/** Inline priority/weight editor: commits on Enter or blur when the value changed (spec §5 minimums). */
export function NumberCell({ value, min, label, disabled, onCommit }: NumberCellProps) {
  const [draft, setDraft] = useState<number | null>(value);
  // A new value from the server replaces the draft; adjusted while rendering, not in an effect.
  const [shown, setShown] = useState(value);
  if (shown !== value) {
    setShown(value);
    setDraft(value);
  }
  // Reads the typed text: the input may still hold an out-of-range value it has not clamped yet.
  const commit = (typed: string) => {
    const next = Math.max(min, Math.trunc(Number(typed.trim() === '' ? (draft ?? 0) : typed)) || 0);
    setDraft(next);
    if (next !== value) onCommit(next);
  };
  return (
    <InputNumber
      size="small"
      className="mg-number-cell"
      aria-label={label}
      min={min}
      precision={0}
      value={draft}
      disabled={disabled}
      onChange={(next) => setDraft(typeof next === 'number' ? next : null)}
      onBlur={(event) => commit(event.target.value)}
      onPressEnter={(event) => commit((event.target as HTMLInputElement).value)}
    />
  );
}
