import {
  LOCALISED_OPTION_DEFAULTS,
  OPTION_KEYS,
  OPTION_REGISTRY,
  OWN_GROUP_DESCRIPTION,
  isLocalisedOption,
  isOptionKey,
  isSecretOption,
  normaliseOption,
  optionValue,
  type Lang,
  type OptionKey,
  type OptionKeyOf,
} from '@modelgate/shared';
import { optionPurpose, SecretUnreadableError, type SecretBox } from '../../crypto/secret-box.js';
import type { Db } from '../../db/client.js';
import { upsert } from '../../db/dialect.js';
import { AppError } from '../../http/errors.js';

type Listener = (key: OptionKey, value: string) => void;

/**
 * Options with an in-process cache: defaults, then database rows. A write is one upsert, then the
 * key is re-read and `onWrite` tells the other nodes (Redis pub/sub), which re-read it too; without
 * Redis they pick it up on their next `reload()` (every SYNC_FREQUENCY). Reads of the database are
 * applied in the order they were started, so a slow read can never put back an older value.
 * Parsed JSON values are memoised per raw string. Keys, kinds and defaults come from the shared
 * option registry, so a misspelt key or a switch read as a number does not compile.
 * Secret options (registry access `secret`) are sealed in the database (crypto/secret-box.ts) and
 * held opened in this cache only.
 * A few defaults have a form per language (shared default-data.ts): while no row holds such a key,
 * callers that pass a language read that form; once saved, the value is answered exactly as saved.
 */
export class OptionsService {
  private readonly values = new Map<OptionKey, string>();
  private readonly parsed = new Map<OptionKey, { raw: string; value: unknown }>();
  /** Keys that have a database row (saved by an admin, or carried over from a reference database). */
  private readonly saved = new Set<OptionKey>();
  private readonly parsedDefaults = new Map<string, unknown>();
  private readonly listeners: Listener[] = [];
  private queue: Promise<void> = Promise.resolve();
  /** Called after a stored change (the invalidation bus publishes it to every node). */
  onWrite?: (key: OptionKey) => void;
  /** Told when a stored secret does not open (the option then reads as unset); set in create-context to the log. */
  onUnreadable?: (key: OptionKey, err: SecretUnreadableError) => void;

  constructor(
    private readonly handle: Db,
    private readonly secrets: SecretBox,
  ) {
    for (const k of OPTION_KEYS) this.values.set(k, OPTION_REGISTRY[k].default);
  }

  private serial(fn: () => Promise<void>): Promise<void> {
    const run = this.queue.then(fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  reload(): Promise<void> {
    return this.serial(async () => {
      const rows = await this.handle.db.selectFrom('options').select(['key', 'value']).execute();
      for (const r of rows) this.apply(r.key, r.value ?? '');
    });
  }

  /** Re-reads one key (another node changed it); a key this version does not know is ignored. */
  reloadKey(key: string): Promise<void> {
    if (!isOptionKey(key)) return Promise.resolve();
    return this.serial(async () => {
      const row = await this.handle.db.selectFrom('options').select('value').where('key', '=', key).executeTakeFirst();
      if (row) this.apply(key, row.value ?? '');
    });
  }

  private apply(key: string, stored: string): void {
    if (!isOptionKey(key)) return;
    this.saved.add(key);
    const value = isSecretOption(key) ? this.openSecret(key, stored) : stored;
    if (this.values.get(key) !== value) {
      this.values.set(key, value);
      this.emit(key, value);
    }
  }

  private openSecret(key: OptionKey, stored: string): string {
    try {
      return this.secrets.open(optionPurpose(key), stored);
    } catch (e) {
      if (!(e instanceof SecretUnreadableError)) throw e;
      this.onUnreadable?.(key, e);
      return '';
    }
  }

  onChange(fn: Listener): void {
    this.listeners.push(fn);
  }

  private emit(key: OptionKey, value: string): void {
    for (const fn of this.listeners) fn(key, value);
  }

  str(key: OptionKey): string {
    return this.values.get(key) ?? '';
  }

  /** `str` as the caller of `lang` reads it: an unsaved default in that language, any saved value as saved. */
  strFor(key: OptionKey, lang: Lang): string {
    if (isLocalisedOption(key) && !this.saved.has(key)) return LOCALISED_OPTION_DEFAULTS[key][lang];
    return this.str(key);
  }

  /** `json` as the caller of `lang` reads it (see `strFor`). */
  jsonFor<T>(key: OptionKeyOf<'json'>, lang: Lang, fallback: T): T {
    if (!isLocalisedOption(key) || this.saved.has(key)) return this.json(key, fallback);
    const raw = LOCALISED_OPTION_DEFAULTS[key][lang];
    if (!this.parsedDefaults.has(raw)) this.parsedDefaults.set(raw, JSON.parse(raw));
    return this.parsedDefaults.get(raw) as T;
  }

  bool(key: OptionKeyOf<'bool'>): boolean {
    return optionValue(key, this.values.get(key));
  }

  num(key: OptionKeyOf<'int' | 'float'>): number {
    return optionValue(key, this.values.get(key));
  }

  json<T>(key: OptionKeyOf<'json'>, fallback: T): T {
    const raw = this.values.get(key) ?? '';
    const memo = this.parsed.get(key);
    if (memo && memo.raw === raw) return memo.value as T;
    let value: unknown = fallback;
    try {
      value = JSON.parse(raw);
    } catch {
      value = fallback;
    }
    this.parsed.set(key, { raw, value });
    return value as T;
  }

  /** Validates, stores and applies one option; returns the stored string. */
  set(key: OptionKey, raw: unknown): Promise<string> {
    return this.update(key, raw);
  }

  /** `set` for a key that came from a client: an unknown key is refused with OPTION_UNKNOWN. */
  async update(key: string, raw: unknown): Promise<string> {
    if (!isOptionKey(key)) throw new AppError('OPTION_UNKNOWN', 200, key);
    const checked = normaliseOption(key, raw, (k) => this.str(k));
    if (!checked.ok) throw new AppError(checked.code, 200, checked.detail);
    const value = checked.value;
    const stored = isSecretOption(key) ? this.secrets.seal(optionPurpose(key), value) : value;
    await upsert(this.handle.db, this.handle.kind, 'options', { key, value: stored }, ['key'], ['value']);
    // Re-read rather than trust `value`: of two saves racing on this node, the cache must end
    // with the one the database kept.
    await this.reloadKey(key);
    this.onWrite?.(key);
    return value;
  }

  /** The super admin's list (`GET /api/option/`): every key but the secrets, values as strings, unsaved defaults in `lang`. */
  list(lang: Lang = 'zh'): Array<{ key: string; value: string }> {
    const out: Array<{ key: string; value: string }> = [];
    for (const key of this.values.keys()) if (!isSecretOption(key)) out.push({ key, value: this.strFor(key, lang) });
    return out;
  }

  /** Group → ratio (missing group → ratio 1, as the reference). */
  groupRatio(group: string): number {
    const map = this.json<Record<string, number>>('GroupRatio', {});
    const r = map[group];
    return typeof r === 'number' ? r : 1;
  }

  groupExists(group: string): boolean {
    return Object.hasOwn(this.json<Record<string, number>>('GroupRatio', {}), group);
  }

  /**
   * Usable groups for a user: UserUsableGroups plus the user's own group (reference §8.4), the
   * descriptions the server supplies in `lang` (only the names matter to callers that pass none).
   */
  usableGroups(userGroup: string, lang: Lang = 'zh'): Record<string, string> {
    const groups = { ...this.jsonFor<Record<string, string>>('UserUsableGroups', lang, {}) };
    if (userGroup && !groups[userGroup]) groups[userGroup] = OWN_GROUP_DESCRIPTION[lang];
    return groups;
  }
}
