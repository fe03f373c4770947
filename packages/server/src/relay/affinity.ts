import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { SharedStore } from '../cluster/shared-store.js';
import type { RelayInput } from './relay-input.js';

/**
 * Channel affinity (docs/providers.md "Channel affinity"): the requests of one conversation stay on
 * the channel that served it, so the upstream's prompt cache keeps hitting. The conversation is
 * named by what the client sends (below); the entry is scoped by user, group and requested model,
 * holds a channel id and lives `ChannelAffinityTtlSeconds`, refreshed on use.
 */

/** Where a conversation key came from (kept in the key, so two sources never collide). */
export type AffinitySource = 'metadata' | 'cache_key' | 'session' | 'conversation' | 'user' | 'prompt';

export interface ConversationKey {
  source: AffinitySource;
  value: string;
}

/** How much of the leading prompt is hashed when nothing names the conversation. */
export const PROMPT_PREFIX_CHARS = 8192;
/** Client-supplied ids longer than this are hashed (a key stays small in memory and in the store). */
const MAX_ID_CHARS = 256;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const v = headers[name];
  return str(Array.isArray(v) ? v[0] : v);
};

/** The text of a content value in any of the text formats (string, parts / blocks with `text`). */
function contentText(content: unknown, out: string[], budget: { left: number }): void {
  if (budget.left <= 0) return;
  if (typeof content === 'string') {
    out.push(content.slice(0, budget.left));
    budget.left -= content.length;
    return;
  }
  if (!Array.isArray(content)) return;
  for (const part of content) {
    const p = obj(part);
    if (!p) continue;
    // OpenAI / Anthropic / Responses parts carry `text`; Gemini parts do too.
    if (typeof p.text === 'string') contentText(p.text, out, budget);
    if (budget.left <= 0) return;
  }
}

/**
 * The leading prompt of a text request: its system text (OpenAI system / developer messages,
 * Anthropic `system`, Responses `instructions`, Gemini `systemInstruction`, Cohere `preamble`) and
 * its first user message, capped at PROMPT_PREFIX_CHARS. Empty when the body has neither.
 */
export function leadingPrompt(body: Record<string, unknown>): string {
  const out: string[] = [];
  const budget = { left: PROMPT_PREFIX_CHARS };
  contentText(body.system, out, budget);
  contentText(body.instructions, out, budget);
  contentText(body.preamble, out, budget);
  const sys = obj(body.systemInstruction) ?? obj(body.system_instruction);
  if (sys) contentText(sys.parts, out, budget);
  let user = false;
  const list = Array.isArray(body.messages) ? body.messages : Array.isArray(body.contents) ? body.contents : Array.isArray(body.input) ? body.input : undefined;
  if (typeof body.input === 'string') {
    contentText(body.input, out, budget);
    user = true;
  } else if (typeof body.prompt === 'string') {
    contentText(body.prompt, out, budget);
    user = true;
  } else if (typeof body.message === 'string') {
    contentText(body.message, out, budget);
    user = true;
  }
  for (const m of list ?? []) {
    if (user || budget.left <= 0) break;
    const msg = obj(m);
    if (!msg) continue;
    const role = msg.role;
    if (role === 'system' || role === 'developer') contentText(msg.content, out, budget);
    else if (role === 'user') {
      contentText(msg.content ?? msg.parts, out, budget);
      user = true;
    }
  }
  // Normalised: whitespace runs are one space, so re-indented or re-wrapped copies match.
  return out.join('\n').replace(/\s+/g, ' ').trim().slice(0, PROMPT_PREFIX_CHARS);
}

function idValue(v: string): string {
  return v.length <= MAX_ID_CHARS ? v : createHash('sha256').update(v).digest('base64url');
}

/**
 * The conversation a text request belongs to, first found: Anthropic `metadata.user_id` (Claude
 * Code's session), `prompt_cache_key` (OpenAI chat and Responses; Codex sends its conversation id),
 * Codex's `session_id` / `conversation_id` headers, OpenAI `user`, else a hash of the leading prompt.
 * Undefined for requests with no JSON body or nothing to go by.
 */
export function conversationKey(input: Pick<RelayInput, 'body'>, headers: IncomingHttpHeaders): ConversationKey | undefined {
  const body = input.body;
  if (!body) return undefined;
  const metadata = str(obj(body.metadata)?.user_id);
  if (metadata) return { source: 'metadata', value: idValue(metadata) };
  const cacheKey = str(body.prompt_cache_key);
  if (cacheKey) return { source: 'cache_key', value: idValue(cacheKey) };
  const session = header(headers, 'session_id') ?? header(headers, 'session-id');
  if (session) return { source: 'session', value: idValue(session) };
  const conversation = header(headers, 'conversation_id') ?? header(headers, 'conversation-id');
  if (conversation) return { source: 'conversation', value: idValue(conversation) };
  const user = str(body.user);
  if (user) return { source: 'user', value: idValue(user) };
  const prompt = leadingPrompt(body);
  if (!prompt) return undefined;
  return { source: 'prompt', value: createHash('sha256').update(prompt).digest('base64url') };
}

/** The store key of a conversation: never shared across users, groups or requested models. */
export function affinityKey(userId: number, group: string, model: string, key: ConversationKey): string {
  const scoped = `${userId}\u0000${group}\u0000${model}\u0000${key.source}\u0000${key.value}`;
  return `affinity:${createHash('sha256').update(scoped).digest('base64url')}`;
}

interface MemoryEntry {
  channel: number;
  /** When the shared entry expires, as this node last wrote or read it. */
  expiresAt: number;
  /** When this node last wrote or read the shared entry. */
  seenAt: number;
}

/**
 * The affinity map: the shared store (Redis when configured, else the database: every node sees
 * it) behind a per-node memory cache. A lookup the memory answers costs no I/O; the memory trusts
 * its entry for `localFreshMs`, then reads the store again (another node may have moved the
 * conversation). A write happens only when the channel changes or the entry is past half its TTL.
 */
export class ChannelAffinity {
  private readonly memory = new Map<string, MemoryEntry>();
  private store: SharedStore | undefined;
  /** Store reads and writes so far (a test's measure of the hot path's cost). */
  readonly io = { reads: 0, writes: 0 };
  /** Told when a store call fails (set in create-context to the log); affinity then just does not apply. */
  onError?: (err: unknown) => void;

  constructor(
    private readonly opts: { maxEntries?: number; localFreshMs?: number; now?: () => number } = {},
  ) {}

  /** The shared store every node sees (create-context); without one the map is this node's only. */
  useStore(store: SharedStore): void {
    this.store = store;
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  private remember(key: string, entry: MemoryEntry): void {
    // Re-inserted, so the Map's order is least recently used first.
    this.memory.delete(key);
    this.memory.set(key, entry);
    const max = this.opts.maxEntries ?? 100_000;
    while (this.memory.size > max) this.memory.delete(this.memory.keys().next().value!);
  }

  /** The channel a conversation is bound to, or undefined (none, expired, or the store failed). */
  async lookup(key: string): Promise<number | undefined> {
    const now = this.now();
    const hit = this.memory.get(key);
    if (hit && hit.expiresAt > now && now - hit.seenAt < (this.opts.localFreshMs ?? 30_000)) {
      this.remember(key, hit);
      return hit.channel;
    }
    if (!this.store) return hit && hit.expiresAt > now ? hit.channel : undefined;
    let raw: string | undefined;
    try {
      this.io.reads += 1;
      raw = await this.store.get(key);
    } catch (err) {
      this.onError?.(err);
      return undefined;
    }
    const [ch, exp] = (raw ?? '').split('|');
    const channel = Number(ch);
    const expiresAt = Number(exp);
    if (!raw || !Number.isInteger(channel) || channel <= 0 || !(expiresAt > now)) {
      this.memory.delete(key);
      return undefined;
    }
    this.remember(key, { channel, expiresAt, seenAt: now });
    return channel;
  }

  /**
   * Binds a conversation to the channel that just served it. The memory is updated at once (the
   * next request on this node sees it); the store only when the channel changed or the entry has
   * less than half its TTL left.
   */
  async bind(key: string, channel: number, ttlMs: number): Promise<void> {
    const now = this.now();
    const hit = this.memory.get(key);
    if (hit && hit.channel === channel && hit.expiresAt - now > ttlMs / 2) return;
    const entry = { channel, expiresAt: now + ttlMs, seenAt: now };
    this.remember(key, entry);
    if (!this.store) return;
    try {
      this.io.writes += 1;
      await this.store.set(key, `${channel}|${entry.expiresAt}`, ttlMs);
    } catch (err) {
      this.onError?.(err);
    }
  }

  /** Forgets this node's copies (tests; a store that was swapped). */
  clear(): void {
    this.memory.clear();
  }
}
