import { DEFAULT_CACHE_RATIO } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../../test-support/expected-charge.js';
import { addCaller, addChannel, balances, consumeLogs, spentBy, startRelayHarness, type RelayHarness } from '../../test-support/relay-fixtures.js';

/**
 * The cache ratio options end to end: a gpt-5 call whose upstream reports cached prompt tokens is
 * billed at the default CacheRatio (0.1), then at the ratio the operator saves; user, token and
 * log row move by the same exact amount.
 */
const CACHED = 6;
let h: RelayHarness;

beforeAll(async () => {
  h = await startRelayHarness({ fake: { cachedTokens: CACHED } });
  await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-5' });
});
afterAll(() => h.close());

const messages = [{ role: 'user' as const, content: 'Summarise the repository layout and the build steps in a few short sentences please' }];

/** gpt-5: model ratio 0.625, completion ratio 8 (a fixed rule); the cache ratio is the one the test expects in force. */
const gpt5 = (prompt: number, completion: number, cacheRatio: number) => expectedCharge({ model: 'gpt-5', cacheRatio }, { prompt, cached: CACHED, completion });

async function call() {
  const c = await addCaller(h);
  let usage: { prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens?: number } } | undefined;
  const before = await balances(h, c);
  const cost = await spentBy(h, c, async () => {
    usage = (await c.client.chat.completions.create({ model: 'gpt-5', messages })).usage as typeof usage;
  });
  const after = await balances(h, c);
  const [log] = await consumeLogs(h, c.userId);
  return { usage: usage!, cost, userUsed: after.userUsed - before.userUsed, tokenUsed: after.tokenUsed - before.tokenUsed, log: log! };
}

describe('CacheRatio', () => {
  it('bills gpt-5 cached prompt tokens at the default 0.1, then at the ratio the operator sets', async () => {
    expect(DEFAULT_CACHE_RATIO['gpt-5']).toBe(0.1);
    const first = await call();
    expect(first.usage.prompt_tokens_details?.cached_tokens).toBe(CACHED);
    const expected = gpt5(first.usage.prompt_tokens, first.usage.completion_tokens, 0.1);
    expect([first.cost, first.userUsed, first.tokenUsed, Number(first.log.quota)]).toEqual([expected, expected, expected, expected]);
    expect(JSON.parse(first.log.other)).toMatchObject({ cache_tokens: CACHED, cache_ratio: 0.1, model_ratio: 0.625, completion_ratio: 8 });

    const saved = await h.root.put('/api/option/', { key: 'CacheRatio', value: JSON.stringify({ ...DEFAULT_CACHE_RATIO, 'gpt-5': 0.5 }) });
    expect(saved.body.success).toBe(true);
    const second = await call();
    const dearer = gpt5(second.usage.prompt_tokens, second.usage.completion_tokens, 0.5);
    expect(dearer).toBeGreaterThan(expected);
    expect([second.cost, second.userUsed, second.tokenUsed, Number(second.log.quota)]).toEqual([dearer, dearer, dearer, dearer]);
    expect(JSON.parse(second.log.other)).toMatchObject({ cache_tokens: CACHED, cache_ratio: 0.5 });
  });

  it('refuses a negative or non-numeric cache ratio naming the entry', async () => {
    const neg = await h.root.put('/api/option/', { key: 'CacheRatio', value: JSON.stringify({ 'gpt-5': -0.1 }) });
    expect(neg.body).toMatchObject({ success: false });
    expect(String(neg.body.message)).toContain('CacheRatio.gpt-5');
    const text = await h.root.put('/api/option/', { key: 'CreateCacheRatio', value: '{"claude-opus-4-8":"1.25"}' });
    expect(text.body.success).toBe(false);
    expect(h.server.ctx.options.json<Record<string, number>>('CacheRatio', {})['gpt-5']).toBe(0.5);
  });
});
