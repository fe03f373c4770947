import { isOptionKey, OPTION_REGISTRY, type AuditTarget } from '@modelgate/shared';
import type { Db } from '../../db/client.js';
import type { OptionsService } from '../options/options.service.js';
import type { Snapshot } from './audit-entry.js';

export interface SnapshotDeps {
  db: Db;
  options: Pick<OptionsService, 'str'>;
}

/**
 * How the state of each kind of target is read before and after a call that declares `snapshot`
 * (one primary-key read each side, admin calls only). Only the fields an admin sets are read:
 * counters the relay moves (used quota, balance, response time) would show as noise. Credentials
 * are read raw so a change is seen, and masked by the diff (audit-entry.ts).
 */
type Loader = (deps: SnapshotDeps, ids: string[]) => Promise<Snapshot>;

const USER_FIELDS = ['username', 'display_name', 'role', 'status', 'group', 'quota', 'email', 'concurrency_limit', 'password', 'access_token', 'deleted_at'] as const;
const CHANNEL_FIELDS = [
  'name',
  'type',
  'key',
  'status',
  'base_url',
  'models',
  'group',
  'model_mapping',
  'status_code_mapping',
  'priority',
  'weight',
  'tag',
  'setting',
  'other',
  'openai_organization',
  'test_model',
  'auto_ban',
  'max_input_tokens',
] as const;
const REDEMPTION_FIELDS = ['name', 'key', 'status', 'quota', 'deleted_at'] as const;

function oneId(ids: string[]): number | null {
  const n = Number(ids[0]);
  return ids.length === 1 && Number.isSafeInteger(n) && n > 0 ? n : null;
}

/**
 * Options from the in-process cache (a write re-reads its key before answering). A JSON map (a
 * price or ratio table) is compared entry by entry, so a change to one model reads as that model's
 * entry, not as two copies of the whole table.
 */
const options: Loader = async (deps, ids) => {
  const out: Record<string, unknown> = {};
  for (const key of ids) {
    if (!isOptionKey(key)) continue;
    const raw = deps.options.str(key);
    if (OPTION_REGISTRY[key].kind === 'json') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        parsed = undefined;
      }
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        for (const [k, v] of Object.entries(parsed)) out[`${key}.${k}`] = v;
        continue;
      }
    }
    out[key] = raw;
  }
  return out;
};

export const SNAPSHOT_LOADERS: Partial<Record<AuditTarget, Loader>> = {
  option: options,
  user: async ({ db }, ids) => {
    const id = oneId(ids);
    if (id === null) return null;
    return (await db.db.selectFrom('users').select([...USER_FIELDS]).where('id', '=', id).executeTakeFirst()) ?? null;
  },
  channel: async ({ db }, ids) => {
    const id = oneId(ids);
    if (id === null) return null;
    return (await db.db.selectFrom('channels').select([...CHANNEL_FIELDS]).where('id', '=', id).executeTakeFirst()) ?? null;
  },
  redemption: async ({ db }, ids) => {
    const id = oneId(ids);
    if (id === null) return null;
    return (await db.db.selectFrom('redemptions').select([...REDEMPTION_FIELDS]).where('id', '=', id).executeTakeFirst()) ?? null;
  },
};

/** Whether `target` can be snapshotted (the coverage test checks every `snapshot: true` against this). */
export function canSnapshot(target: AuditTarget): boolean {
  return SNAPSHOT_LOADERS[target] !== undefined;
}

export function loadSnapshot(deps: SnapshotDeps, target: AuditTarget, ids: string[]): Promise<Snapshot> {
  const load = SNAPSHOT_LOADERS[target];
  return load ? load(deps, ids) : Promise.resolve(null);
}
