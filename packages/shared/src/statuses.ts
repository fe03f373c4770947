/**
 * Statuses of users, tokens, channels and redemptions (spec §4), with how the console shows each:
 * `key` names the i18n label (`status.<key>` in the screen's namespace), `color` the antd tag colour.
 */

export const UserStatus = { Enabled: 1, Disabled: 2, NotEnableable: 3 } as const;
export const TokenStatus = { Enabled: 1, Disabled: 2, Expired: 3, Exhausted: 4 } as const;
export const ChannelStatus = { Unknown: 0, Enabled: 1, ManuallyDisabled: 2, AutoDisabled: 3 } as const;
export const RedemptionStatus = { Unused: 1, Disabled: 2, Used: 3 } as const;

export interface StatusTag<K extends string> {
  key: K;
  color: string;
}

export type UserStatusKey = 'active' | 'banned' | 'unknown';

export function userStatusTag(status: number): StatusTag<UserStatusKey> {
  if (status === UserStatus.Enabled) return { key: 'active', color: 'success' };
  if (status === UserStatus.Disabled) return { key: 'banned', color: 'error' };
  return { key: 'unknown', color: 'warning' };
}

export type TokenStatusKey = 'enabled' | 'limited' | 'disabled' | 'expired' | 'exhausted' | 'unknown';

/** An enabled token with model limits shows as "limited" (spec §4). */
export function tokenStatusTag(status: number, modelLimitsEnabled: boolean): StatusTag<TokenStatusKey> {
  switch (status) {
    case TokenStatus.Enabled:
      return modelLimitsEnabled ? { key: 'limited', color: 'cyan' } : { key: 'enabled', color: 'green' };
    case TokenStatus.Disabled:
      return { key: 'disabled', color: 'red' };
    case TokenStatus.Expired:
      return { key: 'expired', color: 'gold' };
    case TokenStatus.Exhausted:
      return { key: 'exhausted', color: 'default' };
    default:
      return { key: 'unknown', color: 'default' };
  }
}

export type ChannelStatusKey = 'enabled' | 'disabled' | 'autoDisabled' | 'unknown';

export function channelStatusTag(status: number): StatusTag<ChannelStatusKey> {
  if (status === ChannelStatus.Enabled) return { key: 'enabled', color: 'green' };
  if (status === ChannelStatus.ManuallyDisabled) return { key: 'disabled', color: 'red' };
  if (status === ChannelStatus.AutoDisabled) return { key: 'autoDisabled', color: 'gold' };
  return { key: 'unknown', color: 'default' };
}

export type RedemptionStatusKey = 'unused' | 'disabled' | 'used' | 'unknown';

export function redemptionStatusTag(status: number): StatusTag<RedemptionStatusKey> {
  if (status === RedemptionStatus.Unused) return { key: 'unused', color: 'green' };
  if (status === RedemptionStatus.Disabled) return { key: 'disabled', color: 'red' };
  if (status === RedemptionStatus.Used) return { key: 'used', color: 'grey' };
  return { key: 'unknown', color: 'default' };
}

/** Why and when a channel was auto-disabled: kept as JSON in its `other_info` (reference §3.6). */
export interface AutoDisableInfo {
  reason: string;
  /** Unix seconds, 0 when unknown. */
  time: number;
}

export function autoDisableOtherInfo(reason: string, time: number): string {
  return JSON.stringify({ status_reason: reason, status_time: time });
}

/** other_info is read only for auto-disabled channels (status 3), as in the reference; bad JSON is ignored. */
export function autoDisableInfo(channel: { status: number; other_info?: string | null }): AutoDisableInfo | null {
  if (channel.status !== ChannelStatus.AutoDisabled || !channel.other_info) return null;
  try {
    const info = JSON.parse(channel.other_info) as { status_reason?: unknown; status_time?: unknown };
    if (!info || typeof info !== 'object') return null;
    return { reason: String(info.status_reason ?? ''), time: Number(info.status_time) || 0 };
  } catch {
    return null;
  }
}
