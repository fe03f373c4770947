import { parseLogContent, ratioText, splitLogAmounts, type LogOther } from '@modelgate/shared';
import type { TFunction } from 'i18next';

/** A value with its amounts worded ("$1.000000 of quota", "500 quota points"). */
function wordAmounts(text: string, t: TFunction<'log'>): string {
  return splitLogAmounts(text)
    .map((part) => (typeof part === 'string' ? part : t(part.unit === 'usd' ? 'content.usd' : 'content.points', { value: part.value })))
    .join('');
}

/**
 * Log rows keep the server's Chinese `content` text (shared `log-content.ts` lists its shapes), so
 * the English console words the known ones in English and shows anything else as stored.
 */
export function localizeLogContent(content: string, t: TFunction<'log'>, lang: string): string {
  if (!content || !lang.startsWith('en')) return content;
  const parsed = parseLogContent(content);
  if (!parsed) return content;
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed.values)) values[name] = wordAmounts(value, t);
  if (values.verb) values.verb = t(values.verb === 'increase' ? 'content.increase' : 'content.decrease');
  const text = t(`content.${parsed.key}`, values);
  return parsed.timeout ? `${text} ${t('content.timeout')}` : text;
}

/**
 * Rows written before ratios were logged exactly say "0.07" for 0.075 (the reference's two decimals).
 * Their `other` keeps the exact numbers the bill used: show those, when they round to what the text says.
 */
export function withExactRatios(content: string, other: LogOther): string {
  const parsed = parseLogContent(content);
  if (!parsed || (parsed.key !== 'ratio' && parsed.key !== 'price')) return content;
  const exact: Record<string, unknown> = { model: other.model_ratio, completion: other.completion_ratio, group: other.group_ratio, price: other.model_price };
  // The values stand in the text in the pattern's order: swap each for its exact number in place.
  let out = '';
  let at = 0;
  for (const [name, shown] of Object.entries(parsed.values)) {
    const value = exact[name];
    const found = content.indexOf(shown, at);
    if (found < 0 || typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value - Number(shown)) >= 0.0051) continue;
    out += content.slice(at, found) + ratioText(value);
    at = found + shown.length;
  }
  return out + content.slice(at);
}
