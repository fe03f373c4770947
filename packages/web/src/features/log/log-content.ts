import { parseLogContent, splitLogAmounts } from '@modelgate/shared';
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
