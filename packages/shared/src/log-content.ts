/**
 * The `content` texts the server writes on log rows, in the reference's Chinese (API clients and
 * old rows read them as they are). One pattern per text, next to nothing else, so the console can
 * word a row in the viewer's language: `parseLogContent` names the text and its values,
 * `splitLogAmounts` finds the amounts (`quotaLogText`: "＄X 额度" or "X 点额度") inside a value.
 */
export type LogContentKey =
  | 'price' | 'ratio' | 'fixed' | 'video' | 'newUser' | 'invitee' | 'inviter' | 'mjRefund' | 'taskRefund' | 'adminAdd' | 'adminSet' | 'topup' | 'redeem';

const PATTERNS: ReadonlyArray<{ key: LogContentKey; re: RegExp; names: readonly string[] }> = [
  // relay/billing/pricing.ts describePrice; the suffix marks a stream that ended without usage.
  { key: 'price', re: /^模型价格 (\S+)，分组倍率 (\S+?)(（可能是上游超时）)?$/, names: ['price', 'group', 'timeout'] },
  { key: 'ratio', re: /^模型倍率 (\S+)，补全倍率 (\S+)，分组倍率 (\S+?)(（可能是上游超时）)?$/, names: ['model', 'completion', 'group', 'timeout'] },
  // Midjourney and Suno submissions.
  { key: 'fixed', re: /^模型固定价格 (\S+)，操作 (\S+)$/, names: ['price', 'action'] },
  // Video tasks billed per second (relay/video/video-billing.ts).
  { key: 'video', re: /^视频生成 (\S+) 秒，分辨率 (\S+)，每秒价格 (\S+)，分组倍率 (\S+)$/, names: ['seconds', 'resolution', 'price', 'group'] },
  // users.service: registration and invitation gifts.
  { key: 'newUser', re: /^新用户注册赠送 (.+)$/, names: ['quota'] },
  { key: 'invitee', re: /^使用邀请码赠送 (.+)$/, names: ['quota'] },
  { key: 'inviter', re: /^邀请用户赠送 (.+)$/, names: ['quota'] },
  // Task refunds.
  { key: 'mjRefund', re: /^构图失败 (\S+)，补偿 (\S+)$/, names: ['task', 'quota'] },
  { key: 'taskRefund', re: /^异步任务执行失败 (\S+)，补偿 (\S+)$/, names: ['task', 'quota'] },
  // admin-quota.ts: an admin adds to or sets a user's quota.
  { key: 'adminAdd', re: /^管理员 (\S+) 为用户(增加|减少)额度 (.+)，从 (.+)修改为 (.+)$/, names: ['admin', 'verb', 'amount', 'from', 'to'] },
  { key: 'adminSet', re: /^管理员 (\S+) 将用户额度从 (.+)修改为 (.+)$/, names: ['admin', 'from', 'to'] },
  // Online top-up and redemption codes.
  { key: 'topup', re: /^在线充值成功，充值额度：(.+)，支付金额：(\S+)，订单号：(\S+)$/, names: ['quota', 'money', 'order'] },
  { key: 'redeem', re: /^通过兑换码充值 (.+)，兑换码名称：(.*)$/, names: ['quota', 'name'] },
];

export interface ParsedLogContent {
  key: LogContentKey;
  values: Record<string, string>;
  /** Only for `price` and `ratio`: the upstream may have timed out (no usage reported). */
  timeout: boolean;
}

export function parseLogContent(content: string): ParsedLogContent | null {
  for (const { key, re, names } of PATTERNS) {
    const match = re.exec(content);
    if (!match) continue;
    const values: Record<string, string> = {};
    names.forEach((name, i) => (values[name] = match[i + 1] ?? ''));
    const timeout = !!values.timeout;
    delete values.timeout;
    // The admin's verb, as a word the console translates.
    if (values.verb !== undefined) values.verb = values.verb === '增加' ? 'increase' : 'decrease';
    return { key, values, timeout };
  }
  return null;
}

export type LogAmountPart = string | { unit: 'usd' | 'points'; value: string };

/** `text` cut into plain parts and the amounts `quotaLogText` wrote. */
export function splitLogAmounts(text: string): LogAmountPart[] {
  const parts: LogAmountPart[] = [];
  let at = 0;
  for (const match of text.matchAll(/＄(\S+) 额度|(\S+) 点额度/g)) {
    if (match.index > at) parts.push(text.slice(at, match.index));
    parts.push(match[1] !== undefined ? { unit: 'usd', value: match[1] } : { unit: 'points', value: match[2]! });
    at = match.index + match[0].length;
  }
  if (at < text.length) parts.push(text.slice(at));
  return parts;
}

/**
 * A price or ratio as the log writes it: two decimals like the reference ("1.00", "2.50"), but every
 * real digit beyond them (the reference's %.2f showed 0.07 for 0.075, so a bill could not be checked)
 * and no float noise (0.1 + 0.2 is "0.30", not "0.30000000000000004").
 */
export function ratioText(value: number): string {
  const exact = Number(value.toPrecision(12));
  return Number(exact.toFixed(2)) === exact ? exact.toFixed(2) : String(exact);
}
