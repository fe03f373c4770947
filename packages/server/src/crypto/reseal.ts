import { OPTION_KEYS, isSecretOption } from '@modelgate/shared';
import type { Db } from '../db/client.js';
import { CHANNEL_KEY_PURPOSE, optionPurpose, SEALED_PREFIX, SecretBox, SecretUnreadableError } from './secret-box.js';

export interface ResealCounts {
  /** Plaintext values sealed now. */
  sealed: number;
  /** Values sealed with an older key, re-sealed with the current one (rotation only). */
  rotated: number;
  /** Values already sealed with the current key (or, at boot, sealed with any key). */
  unchanged: number;
  /** Values that would not open: `where: why`, for the operator. */
  unreadable: string[];
}

export interface ResealReport {
  channels: ResealCounts;
  options: ResealCounts;
  /** TOTP secrets (modules/two-factor): always sealed when written, so only rotation changes them. */
  twoFactor: ResealCounts;
}

/** The sealing purpose of TOTP secrets (modules/two-factor/two-factor.service.ts uses the same). */
export const TWO_FACTOR_SECRET_PURPOSE = 'two_factor.secret';

const SECRET_OPTION_KEYS = OPTION_KEYS.filter((k) => isSecretOption(k));

const counts = (): ResealCounts => ({ sealed: 0, rotated: 0, unchanged: 0, unreadable: [] });

/**
 * Seals every stored secret that is still plaintext (`mode: 'plain'`, the boot task after an
 * upgrade) or, with `mode: 'rotate'`, also re-seals those sealed with an older key. Each row is
 * one compare-and-set (`WHERE value = <what was read>`): two nodes doing this at once, or an admin
 * saving meanwhile, never double-seal or overwrite a newer value — the loser's update matches no
 * row and the value it read is simply left to the winner. Safe to run any number of times.
 */
export async function resealSecrets(handle: Db, box: SecretBox, mode: 'plain' | 'rotate'): Promise<ResealReport> {
  const db = handle.db;
  const report: ResealReport = { channels: counts(), options: counts(), twoFactor: counts() };

  const next = (purpose: string, stored: string, c: ResealCounts, where: string): string | null => {
    if (!SecretBox.isSealed(stored)) {
      c.sealed++;
      return box.seal(purpose, stored);
    }
    if (mode === 'plain' || box.isCurrent(stored)) {
      c.unchanged++;
      return null;
    }
    try {
      const v = box.reseal(purpose, stored);
      c.rotated++;
      return v;
    } catch (e) {
      if (!(e instanceof SecretUnreadableError)) throw e;
      c.unreadable.push(`${where}: ${e.message}`);
      return null;
    }
  };

  let channels = db.selectFrom('channels').select(['id', 'key']).where('key', '!=', '');
  if (mode === 'plain') channels = channels.where('key', 'not like', `${SEALED_PREFIX}%`);
  for (const row of await channels.orderBy('id').execute()) {
    const value = next(CHANNEL_KEY_PURPOSE, row.key, report.channels, `channel #${row.id}`);
    if (value === null) continue;
    await db.updateTable('channels').set({ key: value }).where('id', '=', row.id).where('key', '=', row.key).execute();
  }

  let options = db.selectFrom('options').select(['key', 'value']).where('key', 'in', SECRET_OPTION_KEYS).where('value', '!=', '');
  if (mode === 'plain') options = options.where('value', 'not like', `${SEALED_PREFIX}%`);
  for (const row of await options.orderBy('key').execute()) {
    const stored = row.value ?? '';
    const value = next(optionPurpose(row.key), stored, report.options, `option ${row.key}`);
    if (value === null) continue;
    await db.updateTable('options').set({ value }).where('key', '=', row.key).where('value', '=', stored).execute();
  }

  // Written sealed from the start: nothing for the boot step, only rotation re-seals them.
  if (mode === 'rotate') {
    for (const row of await db.selectFrom('two_factor').select(['user_id', 'secret']).orderBy('user_id').execute()) {
      const value = next(TWO_FACTOR_SECRET_PURPOSE, row.secret, report.twoFactor, `two-factor secret of user #${row.user_id}`);
      if (value === null) continue;
      await db.updateTable('two_factor').set({ secret: value }).where('user_id', '=', row.user_id).where('secret', '=', row.secret).execute();
    }
  }
  return report;
}

/**
 * Sealed values no configured key opens (a node started with the wrong CRYPTO_SECRET, or a key
 * dropped from CRYPTO_SECRET_OLD too early), as `where: why` lines. Read at boot so the operator
 * learns it from the log, not from a failing channel.
 */
export async function unreadableSecrets(handle: Db, box: SecretBox): Promise<string[]> {
  const out: string[] = [];
  const known = new Set(box.kids);
  const check = (stored: string, purpose: string, where: string) => {
    const kid = SecretBox.kidOf(stored);
    if (kid && known.has(kid)) return;
    try {
      box.open(purpose, stored);
    } catch (e) {
      if (e instanceof SecretUnreadableError) out.push(`${where}: ${e.message}`);
      else throw e;
    }
  };
  const channels = await handle.db.selectFrom('channels').select(['id', 'key']).where('key', 'like', `${SEALED_PREFIX}%`).execute();
  for (const r of channels) check(r.key, CHANNEL_KEY_PURPOSE, `channel #${r.id}`);
  const options = await handle.db.selectFrom('options').select(['key', 'value']).where('key', 'in', SECRET_OPTION_KEYS).where('value', 'like', `${SEALED_PREFIX}%`).execute();
  for (const r of options) check(r.value ?? '', optionPurpose(r.key), `option ${r.key}`);
  const totp = await handle.db.selectFrom('two_factor').select(['user_id', 'secret']).execute();
  for (const r of totp) check(r.secret, TWO_FACTOR_SECRET_PURPOSE, `two-factor secret of user #${r.user_id}`);
  return out;
}

export function formatReseal(report: ResealReport, mode: 'plain' | 'rotate'): string[] {
  const line = (what: string, c: ResealCounts) =>
    `${what}: ${c.sealed} sealed from plaintext${mode === 'rotate' ? `, ${c.rotated} re-sealed with the current key` : ''}, ${c.unchanged} unchanged, ${c.unreadable.length} unreadable`;
  const unreadable = [...report.channels.unreadable, ...report.options.unreadable, ...report.twoFactor.unreadable];
  return [
    line('channel keys', report.channels),
    line('secret options', report.options),
    ...(mode === 'rotate' ? [line('two-factor secrets', report.twoFactor)] : []),
    ...unreadable.map((u) => `  unreadable ${u}`),
  ];
}

/**
 * The boot step (master node, after migrations): seals plaintext left from before sealing
 * existed, then names in the log any sealed value this node's keys do not open.
 */
export async function sealSecretsAtBoot(handle: Db, box: SecretBox, log: { info(o: object, m: string): void; error(o: object, m: string): void }): Promise<ResealReport> {
  const report = await resealSecrets(handle, box, 'plain');
  const sealed = report.channels.sealed + report.options.sealed;
  if (sealed) log.info({ channels: report.channels.sealed, options: report.options.sealed }, `sealed ${sealed} stored secret(s) that were still plaintext`);
  const bad = await unreadableSecrets(handle, box);
  if (bad.length) log.error({ unreadable: bad }, `${bad.length} stored secret(s) cannot be decrypted with the configured keys (CRYPTO_SECRET, CRYPTO_SECRET_OLD): ${bad.slice(0, 5).join('; ')}`);
  return report;
}
