import { startFakeAnthropic, startFakeGemini, type FakeAnthropic, type FakeGemini } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcile } from '../ledger/reconcile.js';
import { addCaller, addChannel, anthropicClient, balances, consumeLogs, genaiClient, priceModels, startRelayHarness, type RelayHarness, type TestCaller } from '../test-support/relay-fixtures.js';

/**
 * Clamps that keep a request valid (docs/relay-billing.md "Spend limits"): a low balance lowers
 * max_tokens and the reasoning budget under it, or refuses — in the caller's own format, before
 * any upstream call — when thinking cannot fit; max_tokens never passes the mapped model's
 * documented output limit, and the reservation is bounded the same way.
 */
let h: RelayHarness;
let claude: FakeAnthropic;
let gemini: FakeGemini;
// Made-up caller names (ratio 1, completion ratio 1: a quota unit per token) mapped to real models.
const SONNET = 'clamp-sonnet';
const FLASH = 'clamp-flash';
const FOUR_O = 'clamp-4o';
const messages = [{ role: 'user' as const, content: 'Think hard about the sea' }];
/** A timeout of its own: the Anthropic SDK refuses large non-streamed max_tokens without one. */
const LONG = { timeout: 60_000 };

beforeAll(async () => {
  h = await startRelayHarness();
  claude = await startFakeAnthropic({ apiKeys: ['sk-ant-upstream'] });
  gemini = await startFakeGemini({ apiKeys: ['AIza-upstream'] });
  await priceModels(h, [SONNET, FLASH, FOUR_O], 1);
  await addChannel(h.root, { type: 14, name: 'claude', key: 'sk-ant-upstream', base_url: claude.url, models: SONNET, model_mapping: JSON.stringify({ [SONNET]: 'claude-sonnet-4-5' }) });
  await addChannel(h.root, { type: 24, name: 'gemini', key: 'AIza-upstream', base_url: gemini.url, models: FLASH, model_mapping: JSON.stringify({ [FLASH]: 'gemini-2.5-flash' }) });
  await addChannel(h.root, { name: 'openai', base_url: h.fake.url, models: `${FOUR_O},gpt-4o`, model_mapping: JSON.stringify({ [FOUR_O]: 'gpt-4o' }) });
});
afterAll(async () => {
  await claude.close();
  await gemini.close();
  await h.close();
});

/** A served clamped call: what the user and the token lost is the logged charge, one unit per token. */
async function expectBilledOnce(c: TestCaller, remain: number): Promise<void> {
  const after = await balances(h, c);
  const logs = await consumeLogs(h, c.userId);
  expect(logs).toHaveLength(1);
  const log = logs[0]!;
  expect(Number(log.quota)).toBe(Number(log.prompt_tokens) + Number(log.completion_tokens));
  expect(remain - after.remain).toBe(Number(log.quota));
  expect(after.tokenUsed).toBe(Number(log.quota));
  expect(1_000_000 - after.quota).toBe(Number(log.quota));
  expect(after.userUsed).toBe(Number(log.quota));
}

/** A refused call: nothing moved, nothing logged, nothing sent upstream. */
async function expectUntouched(c: TestCaller, remain: number, upstreamCalls: () => number, before: number): Promise<void> {
  expect(upstreamCalls()).toBe(before);
  expect(await balances(h, c)).toMatchObject({ quota: 1_000_000, userUsed: 0, remain, tokenUsed: 0 });
  expect(await consumeLogs(h, c.userId)).toHaveLength(0);
  expect((await reconcile(h.server.ctx.db.db)).ok).toBe(true);
}

describe('a low balance with thinking on an Anthropic channel', () => {
  it('Anthropic caller: budget 8000 under a clamped max_tokens is lowered below it and served', async () => {
    const c = await addCaller(h, { remain: 3000 });
    const msg = await anthropicClient(h, c).messages.create({ model: SONNET, max_tokens: 32_000, thinking: { type: 'enabled', budget_tokens: 8000 }, messages }, LONG);
    expect(msg.type).toBe('message');
    const sent = claude.requests.at(-1)!.body as { max_tokens: number; thinking: { type: string; budget_tokens: number } };
    expect(sent.max_tokens).toBeLessThan(3000);
    expect(sent.thinking).toEqual({ type: 'enabled', budget_tokens: sent.max_tokens - 1 });
    await expectBilledOnce(c, 3000);
  });

  it('Anthropic caller: a clamp under 1025 is refused in the Anthropic envelope, before any upstream call', async () => {
    const c = await addCaller(h, { remain: 900 });
    const before = claude.requests.length;
    const res = await fetch(`${h.server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': `sk-${c.key}`, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: SONNET, max_tokens: 32_000, thinking: { type: 'enabled', budget_tokens: 8000 }, messages }),
    });
    expect(res.status).toBe(403);
    const body = (await res.json()) as { type: string; error: { type: string; message: string } };
    expect(body.type).toBe('error');
    expect(body.error.message).toMatch(/token quota: 900, need quota: \d+/);
    expect(Number(/need quota: (\d+)/.exec(body.error.message)![1])).toBeGreaterThan(1025);
    await expectUntouched(c, 900, () => claude.requests.length, before);
  });

  it('OpenAI caller with reasoning_effort high: the converted budget is lowered below the clamp', async () => {
    const c = await addCaller(h, { remain: 3000 });
    const r = await c.client.chat.completions.create({ model: SONNET, messages, reasoning_effort: 'high' });
    expect(r.object).toBe('chat.completion');
    const sent = claude.requests.at(-1)!.body as { max_tokens: number; thinking: { budget_tokens: number } };
    expect(sent.max_tokens).toBeLessThan(3000);
    expect(sent.thinking).toEqual({ type: 'enabled', budget_tokens: sent.max_tokens - 1 });
    await expectBilledOnce(c, 3000);
  });

  it('OpenAI caller: too little for thinking is refused in the OpenAI envelope', async () => {
    const c = await addCaller(h, { remain: 900 });
    const before = claude.requests.length;
    const err = (await c.client.chat.completions.create({ model: SONNET, messages, reasoning_effort: 'high' }).catch((e: unknown) => e)) as { status: number; code: string; message: string };
    expect(err.status).toBe(403);
    expect(err.code).toBe('pre_consume_token_quota_failed');
    expect(err.message).toMatch(/token quota: 900, need quota: \d+/);
    await expectUntouched(c, 900, () => claude.requests.length, before);
  });

  it('Responses caller with effort high: served under the clamp, refused below the floor in the Responses envelope', async () => {
    const c = await addCaller(h, { remain: 3000 });
    const r = await c.client.responses.create({ model: SONNET, input: 'Think hard about the sea', reasoning: { effort: 'high' } });
    expect(r.object).toBe('response');
    const sent = claude.requests.at(-1)!.body as { max_tokens: number; thinking: { budget_tokens: number } };
    expect(sent.thinking).toEqual({ type: 'enabled', budget_tokens: sent.max_tokens - 1 });
    await expectBilledOnce(c, 3000);

    const poor = await addCaller(h, { remain: 900 });
    const before = claude.requests.length;
    const err = (await poor.client.responses.create({ model: SONNET, input: 'Think hard about the sea', reasoning: { effort: 'high' } }).catch((e: unknown) => e)) as { status: number; error: { type: string; code: string } };
    expect(err.status).toBe(403);
    expect(err.error).toMatchObject({ code: 'pre_consume_token_quota_failed' });
    await expectUntouched(poor, 900, () => claude.requests.length, before);
  });
});

describe('output limits of the mapped model', () => {
  it('max_tokens 32000 to a model mapped to gpt-4o goes upstream as 16384', async () => {
    const c = await addCaller(h);
    await c.client.chat.completions.create({ model: FOUR_O, messages, max_tokens: 32_000 });
    expect((h.fake.requests.at(-1)!.body as { max_tokens: number }).max_tokens).toBe(16_384);
  });

  it('max_tokens past claude-sonnet-4-5 output limit goes upstream as 64000', async () => {
    const c = await addCaller(h);
    await anthropicClient(h, c).messages.create({ model: SONNET, max_tokens: 200_000, messages }, LONG);
    expect((claude.requests.at(-1)!.body as { max_tokens: number }).max_tokens).toBe(64_000);
  });

  it('the reservation is bounded by the caller model limit: enough for 16384 tokens is not clamped', async () => {
    // gpt-4o: 16384 completion tokens cost 16384 × 4 × 1.25 = 81920; 32000 would cost 160000.
    const c = await addCaller(h, { remain: 90_000 });
    await c.client.chat.completions.create({ model: 'gpt-4o', messages, max_tokens: 32_000 });
    expect((h.fake.requests.at(-1)!.body as { max_tokens: number }).max_tokens).toBe(16_384);
    const [log] = await consumeLogs(h, c.userId);
    expect(90_000 - (await balances(h, c)).remain).toBe(Number(log!.quota));
  });
});

describe('Gemini thinking budget', () => {
  it('a budget at or above the clamped maxOutputTokens is lowered below it', async () => {
    const c = await addCaller(h, { remain: 3000 });
    await genaiClient(h, c).models.generateContent({
      model: FLASH,
      contents: 'Think hard about the sea',
      config: { maxOutputTokens: 32_000, thinkingConfig: { thinkingBudget: 8000, includeThoughts: true } },
    });
    const g = (gemini.requests.at(-1)!.body as { generationConfig: { maxOutputTokens: number; thinkingConfig: Record<string, unknown> } }).generationConfig;
    expect(g.maxOutputTokens).toBeLessThan(3000);
    expect(g.thinkingConfig).toEqual({ thinkingBudget: g.maxOutputTokens - 1, includeThoughts: true });
    await expectBilledOnce(c, 3000);
  });

  it('an OpenAI caller with reasoning_effort high keeps the converted budget below the clamp', async () => {
    const c = await addCaller(h, { remain: 3000 });
    await c.client.chat.completions.create({ model: FLASH, messages, reasoning_effort: 'high' });
    const g = (gemini.requests.at(-1)!.body as { generationConfig: { maxOutputTokens: number; thinkingConfig: { thinkingBudget: number } } }).generationConfig;
    expect(g.thinkingConfig.thinkingBudget).toBe(g.maxOutputTokens - 1);
    await expectBilledOnce(c, 3000);
  });
});
