import { expectedEmbeddingUsage, fakeEmbedding, startFakeAnthropic, startFakeGemini, type FakeAnthropic, type FakeGemini } from '@modelgate/testkit';
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../../../test-support/expected-charge.js';
import { addCaller, addChannel, balances, consumeLogs, genaiClient, startRelayHarness, type RelayHarness } from '../../../test-support/relay-fixtures.js';

/**
 * Gemini's embedding methods as an ingress (`POST /v1beta/models/{model}:embedContent` and
 * `:batchEmbedContents`), with `@google/genai`'s `models.embedContent` as the caller: passed
 * through to a Gemini channel (usage counted locally: Gemini reports none), converted to
 * `/v1/embeddings` for an OpenAI-format channel (its usage), refused for a channel that cannot
 * embed; billed exactly; errors in Google's shape.
 */
let h: RelayHarness;
let gemini: FakeGemini;
let claude: FakeAnthropic;
const GEM_EMBED = 'text-embedding-004';
const OAI_EMBED = 'text-embedding-3-small';
const CLAUDE = 'claude-3-5-sonnet-20241022';
const RATIO: Record<string, number> = { [GEM_EMBED]: 10, [OAI_EMBED]: 20 };

beforeAll(async () => {
  h = await startRelayHarness();
  gemini = await startFakeGemini({ apiKeys: ['AIza-upstream'] });
  claude = await startFakeAnthropic({ apiKeys: ['sk-ant-upstream'] });
  await h.server.ctx.options.set('ModelRatio', JSON.stringify({ ...RATIO, [CLAUDE]: 1.5 }));
  await addChannel(h.root, { type: 24, name: 'gemini', key: 'AIza-upstream', base_url: gemini.url, models: GEM_EMBED });
  await addChannel(h.root, { name: 'openai', base_url: h.fake.url, models: OAI_EMBED });
  await addChannel(h.root, { type: 14, name: 'claude', key: 'sk-ant-upstream', base_url: claude.url, models: CLAUDE });
});
afterAll(async () => {
  await gemini.close();
  await claude.close();
  await h.close();
});

/** The Gemini fake's deterministic vector: 8 values from the text's word count. */
const geminiVector = (text: string) => Array.from({ length: 8 }, (_, j) => ((text.split(' ').length + j) % 10) / 10);

async function expectCharged(c: Awaited<ReturnType<typeof addCaller>>, before: Awaited<ReturnType<typeof balances>>, model: string, prompt: number) {
  const quota = expectedCharge({ modelRatio: RATIO[model]! }, { prompt });
  const after = await balances(h, c);
  expect(before.quota - after.quota).toBe(quota);
  expect(before.remain - after.remain).toBe(quota);
  expect(after.userUsed - before.userUsed).toBe(quota);
  expect((await consumeLogs(h, c.userId)).map((l) => ({ model: l.model_name, prompt: l.prompt_tokens, completion: l.completion_tokens, quota: l.quota }))).toEqual([
    { model, prompt, completion: 0, quota },
  ]);
}

describe('Gemini embeddings ingress → Gemini channel (passthrough)', () => {
  it.each([
    ['one content', ['alpha beta']],
    ['several contents', ['alpha beta', 'gamma delta epsilon', 'zeta']],
  ])('models.embedContent with %s: batchEmbedContents passed through, prompt counted locally', async (_n, texts) => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const res = await genaiClient(h, c).models.embedContent({ model: GEM_EMBED, contents: texts, config: { taskType: 'RETRIEVAL_DOCUMENT', outputDimensionality: 8 } });
    expect(res.embeddings!.map((e) => e.values)).toEqual(texts.map(geminiVector));
    const sent = gemini.requests.at(-1)!;
    expect(sent.path).toBe(`/v1beta/models/${GEM_EMBED}:batchEmbedContents`);
    expect(sent.headers['x-goog-api-key']).toBe('AIza-upstream');
    expect(sent.body).toEqual({
      requests: texts.map((text) => ({ model: `models/${GEM_EMBED}`, content: { parts: [{ text }], role: 'user' }, taskType: 'RETRIEVAL_DOCUMENT', outputDimensionality: 8 })),
    });
    await expectCharged(c, before, GEM_EMBED, texts.reduce((n, t) => n + countTokens(t), 0));
  });

  it(':embedContent (one request) is sent as a one-request batch and answered as {embedding}', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const res = await fetch(`${h.server.url}/v1beta/models/${GEM_EMBED}:embedContent?key=sk-${c.key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: { parts: [{ text: 'alpha beta gamma' }] } }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ embedding: { values: geminiVector('alpha beta gamma') } });
    expect(gemini.requests.at(-1)!.body).toEqual({ requests: [{ model: `models/${GEM_EMBED}`, content: { parts: [{ text: 'alpha beta gamma' }] } }] });
    await expectCharged(c, before, GEM_EMBED, countTokens('alpha beta gamma'));
  });
});

describe('Gemini embeddings ingress → OpenAI channel (converted to /v1/embeddings)', () => {
  it.each([
    ['one content', ['alpha beta']],
    ['several contents', ['alpha beta', 'gamma delta epsilon']],
  ])('models.embedContent with %s: the OpenAI usage billed', async (_n, texts) => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const res = await genaiClient(h, c).models.embedContent({ model: OAI_EMBED, contents: texts, config: { outputDimensionality: 4 } });
    expect(res.embeddings!.map((e) => e.values)).toEqual(texts.map((t) => fakeEmbedding(t, 4)));
    const sent = h.fake.requests.at(-1)!;
    expect(sent.path).toBe('/v1/embeddings');
    expect(sent.body).toEqual({ model: OAI_EMBED, input: texts, encoding_format: 'float', dimensions: 4 });
    await expectCharged(c, before, OAI_EMBED, expectedEmbeddingUsage(sent.body).prompt_tokens);
  });

  it(':embedContent answered as {embedding}; what OpenAI cannot express is refused naming the field', async () => {
    const c = await addCaller(h);
    const url = (m: string) => `${h.server.url}/v1beta/models/${OAI_EMBED}:${m}`;
    const headers = { 'x-goog-api-key': `sk-${c.key}`, 'content-type': 'application/json' };
    const one = await fetch(url('embedContent'), { method: 'POST', headers, body: JSON.stringify({ content: { parts: [{ text: 'alpha beta' }] } }) });
    expect(await one.json()).toEqual({ embedding: { values: fakeEmbedding('alpha beta') } });
    const typed = await fetch(url('embedContent'), { method: 'POST', headers, body: JSON.stringify({ content: { parts: [{ text: 'x' }] }, taskType: 'RETRIEVAL_QUERY' }) });
    expect(typed.status).toBe(400);
    expect(await typed.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining('task_type') } });
    const mixed = await fetch(url('batchEmbedContents'), {
      method: 'POST',
      headers,
      body: JSON.stringify({ requests: [{ content: { parts: [{ text: 'a' }] }, outputDimensionality: 4 }, { content: { parts: [{ text: 'b' }] }, outputDimensionality: 8 }] }),
    });
    expect(mixed.status).toBe(400);
    expect(await mixed.json()).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining('output_dimensionality') } });
    expect(await consumeLogs(h, c.userId)).toHaveLength(1);
  });
});

describe('Gemini embeddings ingress: refusals in Google’s shape', () => {
  it('a channel that cannot embed (Anthropic) → 501 UNIMPLEMENTED naming embeddings; bad bodies → 400 naming the field; nothing charged', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const err = await genaiClient(h, c).models.embedContent({ model: CLAUDE, contents: 'alpha' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 501 });
    expect((err as Error).message).toContain('UNIMPLEMENTED');
    expect((err as Error).message).toContain(': embeddings (channel #');
    expect(claude.requests).toHaveLength(0);
    const post = (body: unknown, m = 'batchEmbedContents') =>
      fetch(`${h.server.url}/v1beta/models/${GEM_EMBED}:${m}`, { method: 'POST', headers: { 'x-goog-api-key': `sk-${c.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    for (const [body, field] of [
      [{ requests: [] }, 'requests'],
      [{ requests: [{ content: { parts: [{ inlineData: { mimeType: 'image/png', data: 'AA==' } }] } }] }, 'requests[0].content.parts[0].text'],
      [{ requests: [{ model: 'models/other', content: { parts: [{ text: 'a' }] } }] }, 'requests[0].model'],
    ] as const) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining(field) } });
    }
    const bad = await fetch(`${h.server.url}/v1beta/models/${GEM_EMBED}:embedContent`, { method: 'POST', headers: { 'x-goog-api-key': 'sk-nope', 'content-type': 'application/json' }, body: '{}' });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
    expect(await balances(h, c)).toEqual(before);
    expect(await consumeLogs(h, c.userId)).toHaveLength(0);
  });
});
