import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DbSharedStore, RedisSharedStore, type SharedStore } from '../cluster/shared-store.js';
import { openBackend, testBackends, type OpenBackend } from '../test-support/backends.js';
import { affinityKey, ChannelAffinity, conversationKey, leadingPrompt, PROMPT_PREFIX_CHARS } from './affinity.js';

const CLAUDE_CODE_USER = 'user_4f1c9e_account_0b6f3c52-1111-4d2e-9c33-5a0d2b7e8f10_session_7d2a8b3e-2222-4c1f-8e44-9b1c0d3e4f50';

describe('conversation key', () => {
  const key = (body: Record<string, unknown> | null, headers: Record<string, string> = {}) => conversationKey({ body }, headers);

  it('takes Anthropic metadata.user_id whole (Claude Code puts its session in it), before anything else', () => {
    const body = { model: 'claude-sonnet-4-6', metadata: { user_id: CLAUDE_CODE_USER }, prompt_cache_key: 'pck', user: 'u', messages: [{ role: 'user', content: 'hi' }] };
    expect(key(body, { session_id: 'sess' })).toEqual({ source: 'metadata', value: CLAUDE_CODE_USER });
  });

  it('then prompt_cache_key, then the Codex session_id / conversation_id headers, then user', () => {
    expect(key({ prompt_cache_key: 'conv-1', user: 'u' }, { session_id: 's' })).toEqual({ source: 'cache_key', value: 'conv-1' });
    expect(key({ user: 'u', input: 'hi' }, { session_id: 's-1', conversation_id: 'c-1' })).toEqual({ source: 'session', value: 's-1' });
    expect(key({ user: 'u', input: 'hi' }, { conversation_id: 'c-1' })).toEqual({ source: 'conversation', value: 'c-1' });
    expect(key({ user: 'end-user-7', messages: [{ role: 'user', content: 'hi' }] })).toEqual({ source: 'user', value: 'end-user-7' });
  });

  it('ignores empty and non-string ids, and hashes very long ones', () => {
    expect(key({ metadata: { user_id: '  ' }, prompt_cache_key: 42, user: 'u' })).toEqual({ source: 'user', value: 'u' });
    const long = 'x'.repeat(1000);
    const k = key({ prompt_cache_key: long })!;
    expect(k.source).toBe('cache_key');
    expect(k.value).toHaveLength(43);
    expect(key({ prompt_cache_key: long })).toEqual(k);
  });

  it('else hashes the leading prompt: the same start of a conversation gives the same key, whatever follows', () => {
    const first = { messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Plan a trip' }] };
    const later = { messages: [...first.messages, { role: 'assistant', content: 'Where to?' }, { role: 'user', content: 'Rome' }] };
    const other = { messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Write a poem' }] };
    expect(key(first)!.source).toBe('prompt');
    expect(key(later)).toEqual(key(first));
    expect(key(other)).not.toEqual(key(first));
    expect(key({ messages: [] })).toBeUndefined();
    expect(key(null)).toBeUndefined();
  });

  it('reads the system text and first user message of every text format, whitespace normalised', () => {
    expect(leadingPrompt({ system: [{ type: 'text', text: 'Be  brief.' }], messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi\n there' }] }] })).toBe('Be brief. Hi there');
    expect(leadingPrompt({ instructions: 'Codex rules', input: [{ type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'env' }] }, { role: 'user', content: [{ type: 'input_text', text: 'fix it' }] }] })).toBe('Codex rules env fix it');
    expect(leadingPrompt({ systemInstruction: { parts: [{ text: 'sys' }] }, contents: [{ role: 'user', parts: [{ text: 'hello' }] }] })).toBe('sys hello');
    expect(leadingPrompt({ prompt: 'complete me' })).toBe('complete me');
    expect(leadingPrompt({ preamble: 'p', message: 'cohere' })).toBe('p cohere');
  });

  it('caps the hashed prefix, so two long prompts that differ only past the cap share a key', () => {
    const big = 'word '.repeat(PROMPT_PREFIX_CHARS);
    expect(leadingPrompt({ messages: [{ role: 'user', content: big }] }).length).toBeLessThanOrEqual(PROMPT_PREFIX_CHARS);
    expect(key({ messages: [{ role: 'user', content: `${big} A` }] })).toEqual(key({ messages: [{ role: 'user', content: `${big} B` }] }));
  });

  it('scopes the store key by user, group and requested model', () => {
    const k = { source: 'metadata' as const, value: 'same' };
    const base = affinityKey(1, 'default', 'm', k);
    expect(affinityKey(1, 'default', 'm', k)).toBe(base);
    expect(new Set([base, affinityKey(2, 'default', 'm', k), affinityKey(1, 'vip', 'm', k), affinityKey(1, 'default', 'm2', k), affinityKey(1, 'default', 'm', { source: 'user', value: 'same' })]).size).toBe(5);
  });
});

/** A store that counts its calls (the hot path's cost). */
function counting(inner: SharedStore): SharedStore & { gets: number; sets: number } {
  const c = Object.assign(Object.create(inner) as SharedStore, { gets: 0, sets: 0 });
  c.get = (k) => (c.gets++, inner.get(k));
  c.set = (k, v, t) => (c.sets++, inner.set(k, v, t));
  return c as SharedStore & { gets: number; sets: number };
}

describe.each(testBackends())('affinity map over the shared store on $name', (backend) => {
  let open: OpenBackend;
  let storeA: SharedStore;
  let storeB: SharedStore;
  let clock = Date.now();
  const now = () => clock;
  const k = () => `affinity:test:${randomBytes(6).toString('hex')}`;

  beforeAll(async () => {
    open = await openBackend(backend);
    if (backend.kind === 'redis') {
      storeA = new RedisSharedStore(await open.redis());
      storeB = new RedisSharedStore(await open.redis());
    } else {
      storeA = new DbSharedStore(open.db!, now);
      storeB = new DbSharedStore(open.db!, now);
    }
  });
  afterAll(async () => {
    await open?.close();
  });

  it('answers a repeat lookup from memory with no store round trip, and writes only when the channel changes or the TTL is past half', async () => {
    const store = counting(storeA);
    const map = new ChannelAffinity({ now });
    map.useStore(store);
    const key = k();
    expect(await map.lookup(key)).toBeUndefined();
    expect(store.gets).toBe(1);
    await map.bind(key, 7, 60_000);
    expect(store.sets).toBe(1);
    for (let i = 0; i < 10; i++) {
      expect(await map.lookup(key)).toBe(7);
      await map.bind(key, 7, 60_000);
    }
    expect({ gets: store.gets, sets: store.sets }).toEqual({ gets: 1, sets: 1 });
    // Past half its lifetime: the next success refreshes the shared entry once.
    clock += 31_000;
    await map.bind(key, 7, 60_000);
    await map.bind(key, 7, 60_000);
    expect(store.sets).toBe(2);
    // A move to another channel is written at once.
    await map.bind(key, 9, 60_000);
    expect(store.sets).toBe(3);
    expect(await map.lookup(key)).toBe(9);
  });

  it('shows a binding made on one node to another, and a move made on one node reaches the other once its memory is stale', async () => {
    const nodeA = new ChannelAffinity({ now, localFreshMs: 5_000 });
    const nodeB = new ChannelAffinity({ now, localFreshMs: 5_000 });
    nodeA.useStore(storeA);
    nodeB.useStore(storeB);
    const key = k();
    await nodeA.bind(key, 3, 600_000);
    expect(await nodeB.lookup(key)).toBe(3);
    await nodeA.bind(key, 4, 600_000);
    // B trusts its copy for localFreshMs, then reads the store again.
    expect(await nodeB.lookup(key)).toBe(3);
    clock += 5_001;
    expect(await nodeB.lookup(key)).toBe(4);
  });

  it('forgets a binding once its TTL passed', async () => {
    const map = new ChannelAffinity({ now });
    map.useStore(storeA);
    const key = k();
    await map.bind(key, 5, 150);
    if (backend.kind === 'redis') await new Promise((r) => setTimeout(r, 200));
    clock += 200;
    expect(await map.lookup(key)).toBeUndefined();
    expect(await new ChannelAffinity({ now }).lookup(key)).toBeUndefined();
  });
});

describe('affinity map without a store, and when the store fails', () => {
  it('keeps bindings in memory, bounded (least recently used dropped first)', async () => {
    const map = new ChannelAffinity({ maxEntries: 2 });
    await map.bind('a', 1, 60_000);
    await map.bind('b', 2, 60_000);
    expect(await map.lookup('a')).toBe(1);
    await map.bind('c', 3, 60_000);
    expect([await map.lookup('a'), await map.lookup('b'), await map.lookup('c')]).toEqual([1, undefined, 3]);
  });

  it('routes by weight (undefined) when the store throws, and reports it', async () => {
    const errors: unknown[] = [];
    const map = new ChannelAffinity({ localFreshMs: 0 });
    const broken = { get: () => Promise.reject(new Error('down')), set: () => Promise.reject(new Error('down')) } as unknown as SharedStore;
    map.useStore(broken);
    map.onError = (e) => errors.push(e);
    await map.bind('x', 1, 60_000);
    expect(await map.lookup('x')).toBeUndefined();
    expect(errors).toHaveLength(2);
  });
});
