/**
 * Options: only keys in ModelGate's option registry, each checked by the same rules a save through
 * the console passes (packages/shared/src/option-rules.ts). Unknown keys and values the rules refuse
 * are reported and left behind. A key ModelGate already has keeps ModelGate's value (an earlier
 * run's import, or an administrator's later change). Values are never printed: some are secrets.
 * Secret options are written sealed, as the server stores them.
 */
import { isOptionKey, isSecretOption, normaliseOption, optionSpec, type OptionKey } from '@modelgate/shared';
import { optionPurpose, SecretUnreadableError } from '../crypto/secret-box.js';
import type { ImportContext } from './copy.js';
import { text } from './values.js';

export async function importOptions(ctx: ImportContext): Promise<void> {
  const counts = ctx.report.counts('options');
  const rows = await ctx.source.all('options', ['key', 'value'], ['key']);
  counts.source = rows.length;
  // ModelGate's values opened, so a rule or a comparison sees the secret, not its ciphertext.
  const opened = (key: string, stored: string): string => {
    if (!isSecretOption(key)) return stored;
    try {
      return ctx.secrets.open(optionPurpose(key), stored);
    } catch (e) {
      if (e instanceof SecretUnreadableError) return stored;
      throw e;
    }
  };
  const current = new Map((await ctx.t.selectFrom('options').select(['key', 'value']).execute()).map((r) => [r.key, opened(r.key, r.value ?? '')]));
  const incoming = new Map<string, string>();
  for (const row of rows) {
    const key = text(row, 'key');
    if (isOptionKey(key)) incoming.set(key, text(row, 'value'));
    else {
      ctx.report.issue('options', key, 'not an option ModelGate has: not imported');
      counts.skipped++;
    }
  }
  // A rule may need another option filled first (OAuth switches need their client ids): it sees the
  // value this import brings, else ModelGate's.
  const valueOf = (k: OptionKey) => incoming.get(k) ?? current.get(k) ?? optionSpec(k).default;
  for (const [key, raw] of incoming) {
    const checked = normaliseOption(key, raw, valueOf);
    if (!checked.ok) {
      ctx.report.issue('options', key, `value refused by ModelGate's rules (${checked.code}${checked.detail ? `: ${checked.detail}` : ''}): not imported`);
      counts.skipped++;
      continue;
    }
    if (current.has(key)) {
      counts.present++;
      if (current.get(key) !== checked.value) ctx.report.issue('options', key, 'already set in ModelGate to another value: ModelGate\'s value kept');
      continue;
    }
    const value = isSecretOption(key) ? ctx.secrets.seal(optionPurpose(key), checked.value) : checked.value;
    if (ctx.write) await ctx.t.insertInto('options').values({ key, value }).execute();
    counts.imported++;
  }
}
