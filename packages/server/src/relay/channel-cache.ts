import { isDbUnavailable } from '../db/db-unavailable.js';
import { ChannelStatus } from '@modelgate/shared';
import type { CircuitBreaker } from './circuit-breaker.js';
import { SHORT_TTL_MS } from './short-ttl.js';
import { CHANNEL_KEY_PURPOSE, SecretUnreadableError, type SecretBox } from '../crypto/secret-box.js';
import type { Db } from '../db/client.js';
import type { ChannelRow } from '../db/schema.js';
import { UpstreamGuard } from '../net/upstream-guard.js';
import type { ChannelTarget } from './adapters/types.js';

/** A channel as the relay uses it: JSON columns parsed once per load, not per request. */
export interface RuntimeChannel {
  id: number;
  type: number;
  name: string;
  status: number;
  autoBan: boolean;
  /** The channel's `max_input_tokens`: a longer prompt goes to another channel (0 = no limit). */
  maxInputTokens: number;
  priority: number;
  weight: number;
  modelMapping: Record<string, string> | null;
  statusCodeMapping: Record<string, string> | null;
  target: ChannelTarget;
}

function parseJsonObject(text: string | null | undefined): Record<string, unknown> | null {
  if (!text || !text.trim()) return null;
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function stringMap(obj: Record<string, unknown> | null): Record<string, string> | null {
  if (!obj) return null;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj)) if (typeof v === 'string' && v) out[k] = v;
  return Object.keys(out).length ? out : null;
}

/** For a caller that names no guard: an untrusted target is still checked, with no range allowed. */
const STRICT_GUARD = new UpstreamGuard();

/**
 * `row.key` must be the opened key (ChannelsRepository.open, or the cache's own load). `guard` is
 * attached to the target when no root placed it (`target_trusted` 0).
 */
export function toRuntime(row: ChannelRow, guard: UpstreamGuard = STRICT_GUARD): RuntimeChannel {
  return {
    id: Number(row.id),
    type: Number(row.type),
    name: row.name,
    status: Number(row.status),
    autoBan: Number(row.auto_ban) === 1,
    maxInputTokens: Math.max(0, Number(row.max_input_tokens ?? 0) || 0),
    priority: Number(row.priority),
    weight: Number(row.weight),
    modelMapping: stringMap(parseJsonObject(row.model_mapping)),
    statusCodeMapping: stringMap(parseJsonObject(row.status_code_mapping)),
    target: {
      id: Number(row.id),
      type: Number(row.type),
      key: row.key,
      baseUrl: row.base_url ?? '',
      other: row.other ?? '',
      organization: row.openai_organization ?? '',
      setting: parseJsonObject(row.setting) ?? {},
      guard: Number(row.target_trusted) === 1 ? undefined : guard,
    },
  };
}

type Tiers = RuntimeChannel[][];

/**
 * Channels and the selection index (group → model → priority tiers), in memory. Every channel
 * write on any node calls `invalidate()` here (through the invalidation bus: Redis pub/sub across
 * nodes), so an added, edited, disabled or enabled channel is in force on the next request; the
 * index is also reloaded every SYNC_FREQUENCY, which is how nodes converge without Redis.
 * Keys are stored sealed: each is opened once per load (and reused across loads while its stored
 * value is unchanged), never per request. A channel whose key does not open is left out.
 */
const choiceKey = (group: string, model: string) => `${group}\u0000${model}`;

export class ChannelCache {
  private channels = new Map<number, RuntimeChannel>();
  private index = new Map<string, Map<string, Tiers>>();
  /** Channels set up per group and model, whatever their status (choiceKey → count). */
  private configured = new Map<string, number>();
  private generation = 0;
  private loadedGeneration = -1;
  private loadedAt = 0;
  private loading: Promise<void> | null = null;
  /** Opened keys by the stored (sealed) value of the last load. */
  private opened = new Map<string, string>();
  /** Stored values already reported unreadable (one log line each, not one per reload). */
  private reported = new Set<string>();
  /** Told once per unreadable stored key (set in create-context to the log). */
  onUnreadable?: (channelId: number, err: SecretUnreadableError) => void;
  /** Channels the circuit breaker has ejected are passed over while another one can serve. */
  breaker?: Pick<CircuitBreaker, 'allows' | 'picked'>;

  private ttlMs: number;

  constructor(
    private readonly handle: Db,
    private readonly normalTtlMs: number,
    private readonly secrets: SecretBox,
    /** The connect-time check of channels whose target no root placed. */
    private readonly guard: UpstreamGuard,
  ) {
    this.ttlMs = normalTtlMs;
  }

  /** While invalidations may be missed (Redis down), the channels are re-read at least every SHORT_TTL_MS. */
  shortLived(on: boolean): void {
    this.ttlMs = on ? Math.min(this.normalTtlMs, SHORT_TTL_MS) : this.normalTtlMs;
  }

  /** The opened key of a stored value, or null when it does not open. */
  private openKey(id: number, stored: string, opened: Map<string, string>): string | null {
    let key = this.opened.get(stored);
    if (key === undefined) {
      try {
        key = this.secrets.open(CHANNEL_KEY_PURPOSE, stored);
      } catch (e) {
        if (!(e instanceof SecretUnreadableError)) throw e;
        if (!this.reported.has(stored)) {
          this.reported.add(stored);
          this.onUnreadable?.(id, e);
        }
        return null;
      }
    }
    opened.set(stored, key);
    return key;
  }

  invalidate(): void {
    this.generation += 1;
  }

  /** Resolves once the cache reflects every write made before the call. */
  ensure(): Promise<void> | undefined {
    if (this.loadedGeneration === this.generation && Date.now() - this.loadedAt < this.ttlMs) return undefined;
    // While the database is away (ledger/outage) the channels last loaded keep serving.
    if (this.loadedAt > 0 && this.dbAway()) return undefined;
    return this.reload().catch((err: unknown) => {
      if (!(this.loadedAt > 0 && isDbUnavailable(err))) throw err;
    });
  }

  /** True while the ledger knows the database is away (set in create-context). */
  dbAway: () => boolean = () => false;

  private async reload(): Promise<void> {
    while (this.loadedGeneration !== this.generation || Date.now() - this.loadedAt >= this.ttlMs) {
      if (!this.loading) {
        const gen = this.generation;
        this.loading = this.load()
          .then(() => {
            this.loadedGeneration = gen;
            this.loadedAt = Date.now();
          })
          .finally(() => {
            this.loading = null;
          });
      }
      await this.loading;
    }
  }

  private async load(): Promise<void> {
    const db = this.handle.db;
    const [rows, abilities] = await Promise.all([
      db.selectFrom('channels').selectAll().execute(),
      // Disabled abilities too: they count as a choice for channel affinity (hasChoice), not for select.
      db.selectFrom('abilities').select(['group', 'model', 'channel_id', 'priority', 'weight', 'enabled']).execute(),
    ]);
    const channels = new Map<number, RuntimeChannel>();
    const opened = new Map<string, string>();
    for (const r of rows) {
      const key = this.openKey(Number(r.id), r.key, opened);
      if (key !== null) channels.set(Number(r.id), toRuntime({ ...r, key }, this.guard));
    }
    this.opened = opened;
    const byKey = new Map<string, Map<string, Map<number, RuntimeChannel[]>>>();
    const configured = new Map<string, number>();
    for (const a of abilities) {
      const ch = channels.get(Number(a.channel_id));
      if (ch) configured.set(choiceKey(a.group, a.model), (configured.get(choiceKey(a.group, a.model)) ?? 0) + 1);
      if (!ch || ch.status !== ChannelStatus.Enabled || Number(a.enabled) !== 1) continue;
      let models = byKey.get(a.group);
      if (!models) byKey.set(a.group, (models = new Map()));
      let prios = models.get(a.model);
      if (!prios) models.set(a.model, (prios = new Map()));
      const p = Number(a.priority);
      let tier = prios.get(p);
      if (!tier) prios.set(p, (tier = []));
      tier.push({ ...ch, priority: p, weight: Number(a.weight) });
    }
    const index = new Map<string, Map<string, Tiers>>();
    for (const [group, models] of byKey) {
      const m = new Map<string, Tiers>();
      for (const [model, prios] of models) {
        m.set(model, [...prios.entries()].sort((x, y) => y[0] - x[0]).map(([, tier]) => tier));
      }
      index.set(group, m);
    }
    this.channels = channels;
    this.index = index;
    this.configured = configured;
  }

  get(id: number): RuntimeChannel | undefined {
    return this.channels.get(id);
  }

  /** Marks a channel disabled in memory at once (auto-disable), before the reload. */
  markDisabled(id: number): void {
    const ch = this.channels.get(id);
    if (ch) ch.status = ChannelStatus.AutoDisabled;
    this.invalidate();
  }

  /**
   * Highest priority tier that still has a channel not in `exclude`, then a weighted random pick
   * inside it with weight + 10 (reference §3.1), so weight 0 channels still get traffic.
   */
  select(group: string, model: string, exclude: ReadonlySet<number>): RuntimeChannel | undefined {
    const tiers = this.index.get(group)?.get(model);
    if (!tiers) return undefined;
    const breaker = this.breaker;
    // Ejected channels are skipped; when every channel is ejected, they are tried rather than none.
    const ch = this.pick(tiers, exclude, breaker) ?? (breaker ? this.pick(tiers, exclude) : undefined);
    if (ch) breaker?.picked(ch.id);
    return ch;
  }

  private usable(ch: RuntimeChannel, exclude: ReadonlySet<number>, breaker: Pick<CircuitBreaker, 'allows'> | undefined): boolean {
    return !exclude.has(ch.id) && this.isEnabled(ch.id) && (!breaker || breaker.allows(ch.id));
  }

  private pick(tiers: Tiers, exclude: ReadonlySet<number>, breaker?: Pick<CircuitBreaker, 'allows'>): RuntimeChannel | undefined {
    for (const tier of tiers) {
      let total = 0;
      for (const ch of tier) if (this.usable(ch, exclude, breaker)) total += ch.weight + 10;
      if (total === 0) continue;
      let r = Math.random() * total;
      for (const ch of tier) {
        if (!this.usable(ch, exclude, breaker)) continue;
        r -= ch.weight + 10;
        if (r < 0) return ch;
      }
    }
    return undefined;
  }

  /**
   * Channel `id` when `select` could pick it now: enabled, not excluded, and in the highest
   * priority tier that has an available channel (affinity never moves a request to a lower tier
   * while a higher one has capacity). The tier's entry, with that ability's priority and weight.
   */
  candidate(group: string, model: string, id: number, exclude: ReadonlySet<number>): RuntimeChannel | undefined {
    const tiers = this.index.get(group)?.get(model);
    if (!tiers) return undefined;
    for (const tier of tiers) {
      if (!tier.some((ch) => !exclude.has(ch.id) && this.isEnabled(ch.id))) continue;
      // A conversation bound to an ejected channel is routed by weight until the channel is back.
      return tier.find((ch) => ch.id === id && !exclude.has(ch.id) && this.isEnabled(ch.id) && (this.breaker?.allows(ch.id) ?? true));
    }
    return undefined;
  }

  /**
   * Whether more than one channel (enabled or not) is set up for `model` in `group`: with one there
   * is never a choice to remember; with a second one disabled for now, a conversation still moves.
   */
  hasChoice(group: string, model: string): boolean {
    return (this.configured.get(choiceKey(group, model)) ?? 0) > 1;
  }

  /** Whether any channel (enabled or not) of `group` offers `model`: if none, the model is unknown there (404), not unavailable (503). */
  offers(group: string, model: string): boolean {
    return (this.configured.get(choiceKey(group, model)) ?? 0) > 0;
  }

  private isEnabled(id: number): boolean {
    return this.channels.get(id)?.status === ChannelStatus.Enabled;
  }

  /** Distinct models with an enabled channel in `group`. */
  modelsFor(group: string): string[] {
    return [...(this.index.get(group)?.keys() ?? [])].sort();
  }

  /** Model → groups with an enabled channel for it (the pricing page). */
  groupsByModel(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const [group, models] of this.index) {
      for (const model of models.keys()) {
        const gs = out.get(model);
        if (gs) gs.push(group);
        else out.set(model, [group]);
      }
    }
    return out;
  }

  hasModel(group: string, model: string): boolean {
    return this.index.get(group)?.has(model) ?? false;
  }
}
