import { cohereChatInputTokens, FAKE_COHERE_TOOL_ARGS, jinaTokens, rankDocuments, startFakeCohere, startFakeJina, type FakeCohere, type FakeJina } from '@modelgate/testkit';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../../../test-support/expected-charge.js';
import { addCaller, addChannel, anthropicClient, balances, consumeLogs, priceModels, spentBy, startRelayHarness, type RelayHarness, type TestCaller } from '../../../test-support/relay-fixtures.js';
import { countInput } from '../../billing/token-counter.js';

/**
 * Cohere (34: Chat v2, Embed v2, Rerank v1) and Jina (38: embeddings, rerank) channels, and the
 * inbound `/v1/rerank` served by Cohere, Jina and SiliconCloud channels: real SDK callers, the
 * providers' fakes, exact charges.
 */
let h: RelayHarness;
let cohere: FakeCohere;
let jina: FakeJina;
let cohereId = 0;
let jinaId = 0;
const CHAT = 'command-r-08-2024';
const EMBED = 'embed-english-v3.0';
const RERANK = 'rerank-v3.5';
const JINA_EMBED = 'jina-embeddings-v3';
const JINA_RERANK = 'jina-reranker-v2-base-multilingual';
const SILICON_RERANK = 'BAAI/bge-reranker-v2-m3';
const messages = [{ role: 'user' as const, content: 'Hello there friend' }];
const query = 'which city is the capital of France';
const documents = ['Berlin is the capital of Germany', 'Paris is the capital of France', { text: 'The Seine flows through Paris' }];
const docTexts = ['Berlin is the capital of Germany', 'Paris is the capital of France', 'The Seine flows through Paris'];

beforeAll(async () => {
  h = await startRelayHarness();
  cohere = await startFakeCohere({ apiKeys: ['co-upstream'] });
  jina = await startFakeJina({ apiKeys: ['jina_upstream'] });
  const o = h.server.ctx.options;
  await o.set('ModelRatio', JSON.stringify({ [CHAT]: 2, [EMBED]: 0.5, [RERANK]: 3, [JINA_EMBED]: 0.5, [JINA_RERANK]: 3, [SILICON_RERANK]: 1.5 }));
  await o.set('CompletionRatio', JSON.stringify({ [CHAT]: 4 }));
  cohereId = await addChannel(h.root, { type: 34, key: 'co-upstream', base_url: cohere.url, models: `${CHAT},${EMBED},${RERANK}` });
  jinaId = await addChannel(h.root, { type: 38, key: 'jina_upstream', base_url: jina.url, models: `${JINA_EMBED},${JINA_RERANK}` });
  // SiliconCloud's rerank has the same wire shape: its channel is pointed at the Jina fake under a mapped model.
  await addChannel(h.root, { type: 40, key: 'jina_upstream', base_url: jina.url, models: SILICON_RERANK, model_mapping: JSON.stringify({ [SILICON_RERANK]: JINA_RERANK }) });
});
afterAll(async () => {
  await cohere.close();
  await jina.close();
  await h.close();
});

const chatCharge = (prompt: number, completion: number) => expectedCharge({ modelRatio: 2, completionRatio: 4 }, { prompt, completion });
const lastCohere = () => cohere.requests.at(-1)!;
const lastCohereBody = () => lastCohere().body as Record<string, unknown>;

const spent = (c: TestCaller, fn: () => Promise<unknown>) => spentBy(h, c, fn);

function rerank(c: TestCaller, body: Record<string, unknown>) {
  return fetch(`${h.server.url}/v1/rerank`, { method: 'POST', headers: { authorization: `Bearer sk-${c.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

describe('Cohere channel', () => {
  it('chat: OpenAI request converted to Chat v2, reply and billed units back, exact charge', async () => {
    const c = await addCaller(h);
    let res: OpenAI.ChatCompletion | undefined;
    const cost = await spent(c, async () => {
      res = await c.client.chat.completions.create({ model: CHAT, messages: [{ role: 'system', content: 'Be brief' }, ...messages], max_tokens: 50, top_p: 0.9, stop: 'END' });
    });
    expect(res!.choices[0]).toMatchObject({ message: { role: 'assistant', content: 'Hello from the fake Cohere' }, finish_reason: 'stop' });
    expect(lastCohere().path).toBe('/v2/chat');
    expect(lastCohere().headers.authorization).toBe('Bearer co-upstream');
    expect(lastCohereBody()).toEqual({ model: CHAT, messages: [{ role: 'system', content: 'Be brief' }, ...messages], max_tokens: 50, p: 0.9, stop_sequences: ['END'] });
    const prompt = cohereChatInputTokens(lastCohereBody());
    expect(res!.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: 5 });
    expect(cost).toBe(chatCharge(prompt, 5));
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ model_name: CHAT, prompt_tokens: prompt, completion_tokens: 5, quota: chatCharge(prompt, 5) });
  });

  it('chat stream: v2 SSE events become chat chunks with the billed usage; Anthropic callers are served too', async () => {
    const c = await addCaller(h);
    let text = '';
    let usage: { prompt_tokens: number; completion_tokens: number } | undefined | null;
    const cost = await spent(c, async () => {
      const stream = await c.client.chat.completions.create({ model: CHAT, messages, stream: true, stream_options: { include_usage: true } });
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
    });
    expect(text).toBe('Hello from the fake Cohere');
    expect(lastCohereBody()).toMatchObject({ stream: true });
    const prompt = cohereChatInputTokens(lastCohereBody());
    expect(usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: 5 });
    expect(cost).toBe(chatCharge(prompt, 5));
    const msg = await anthropicClient(h, c).messages.create({ model: CHAT, max_tokens: 40, messages });
    expect(msg).toMatchObject({ content: [{ type: 'text', text: 'Hello from the fake Cohere' }], usage: { input_tokens: prompt, output_tokens: 5 } });
  });

  it('tool calls: tools pass in OpenAI shape, tool_calls come back (whole and streamed), results go back as tool messages', async () => {
    const c = await addCaller(h);
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { location: { type: 'string' } } } } }];
    const ask = [{ role: 'user' as const, content: 'weather in Paris?' }];
    const first = await c.client.chat.completions.create({ model: CHAT, messages: ask, tools, tool_choice: 'required' });
    expect(lastCohereBody()).toMatchObject({ tools, tool_choice: 'REQUIRED' });
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    const call = first.choices[0]!.message.tool_calls![0]! as { id: string; type: 'function'; function: { name: string; arguments: string } };
    expect(JSON.parse(call.function.arguments)).toEqual(FAKE_COHERE_TOOL_ARGS);
    const second = await c.client.chat.completions.create({ model: CHAT, tools, messages: [...ask, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: call.id, content: 'sunny' }] });
    expect(second.choices[0]!.message.content).toBe('Hello from the fake Cohere');
    expect((lastCohereBody().messages as unknown[]).slice(1)).toEqual([
      { role: 'assistant', tool_calls: [{ id: call.id, type: 'function', function: call.function }] },
      { role: 'tool', tool_call_id: call.id, content: 'sunny' },
    ]);
    let args = '';
    let name = '';
    for await (const chunk of await c.client.chat.completions.create({ model: CHAT, messages: ask, tools, stream: true })) {
      const d = chunk.choices[0]?.delta?.tool_calls?.[0];
      if (d?.function?.name) name = d.function.name;
      args += d?.function?.arguments ?? '';
    }
    expect(name).toBe('get_weather');
    expect(JSON.parse(args)).toEqual(FAKE_COHERE_TOOL_ARGS);
  });

  it('embeddings: OpenAI SDK → Embed v2 (input_type, float), the billed input tokens charged', async () => {
    const c = await addCaller(h);
    let res: Awaited<ReturnType<typeof c.client.embeddings.create>> | undefined;
    const cost = await spent(c, async () => {
      res = await c.client.embeddings.create({ model: EMBED, input: ['alpha beta gamma', 'delta'], encoding_format: 'float' });
    });
    expect(lastCohere().path).toBe('/v2/embed');
    expect(lastCohereBody()).toEqual({ model: EMBED, texts: ['alpha beta gamma', 'delta'], input_type: 'search_document', embedding_types: ['float'] });
    expect(res!.data.map((d) => d.embedding.length)).toEqual([8, 8]);
    expect(res!.usage).toEqual({ prompt_tokens: 4, total_tokens: 4 });
    expect(cost).toBe(expectedCharge({ modelRatio: 0.5 }, { prompt: 4 }));
  });

  it('an invalid upstream key answers Cohere\'s message as an error and charges nothing', async () => {
    await priceModels(h, ['command-r7b-12-2024']);
    const bad = await addChannel(h.root, { type: 34, key: 'co-wrong', base_url: cohere.url, models: 'command-r7b-12-2024' });
    const c = await addCaller(h);
    const err = (await c.client.chat.completions.create({ model: 'command-r7b-12-2024', messages }).catch((e: unknown) => e)) as { status: number; message: string };
    expect(lastCohere().rejected).toEqual({ status: 401, message: 'invalid api token' });
    expect(err.status).toBe(401);
    expect(await consumeLogs(h, c.userId)).toEqual([]);
    expect(bad).toBeGreaterThan(0);
  });
});

describe('inbound /v1/rerank', () => {
  const expectedPrompt = (model: string) => countInput(model, [query, ...docTexts]);

  it.each([
    { name: 'Cohere (v1 rerank)', model: RERANK, ratio: 3, upstreamPath: '/v1/rerank' },
    { name: 'Jina', model: JINA_RERANK, ratio: 3, upstreamPath: '/v1/rerank' },
    { name: 'SiliconCloud', model: SILICON_RERANK, ratio: 1.5, upstreamPath: '/v1/rerank' },
  ])('$name: results in the Jina/Cohere shape, prompt = tokens(query + documents) charged', async ({ model, ratio, upstreamPath }) => {
    const c = await addCaller(h);
    let json: Record<string, unknown> = {};
    const cost = await spent(c, async () => {
      const res = await rerank(c, { model, query, documents, top_n: 2, return_documents: true });
      expect(res.status).toBe(200);
      json = (await res.json()) as Record<string, unknown>;
    });
    const fake = model === RERANK ? cohere.requests.at(-1)! : jina.requests.at(-1)!;
    expect(fake.path).toBe(upstreamPath);
    expect(fake.body).toEqual({ model: model === SILICON_RERANK ? JINA_RERANK : model, query, documents, top_n: 2, return_documents: true });
    const ranked = rankDocuments(query, docTexts, 2);
    expect(json.results).toEqual(ranked.map((r) => ({ ...r, document: { text: docTexts[r.index] } })));
    expect(json.model).toBe(model);
    const prompt = await expectedPrompt(model);
    expect(json.usage).toEqual({ prompt_tokens: prompt, completion_tokens: 0, total_tokens: prompt });
    expect(cost).toBe(expectedCharge({ modelRatio: ratio }, { prompt }));
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ model_name: model, prompt_tokens: prompt, completion_tokens: 0, quota: expectedCharge({ modelRatio: ratio }, { prompt }) });
  });

  it('refuses a body without query or documents with an OpenAI error, charging nothing', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const noQuery = await rerank(c, { model: JINA_RERANK, documents });
    expect(noQuery.status).toBe(400);
    expect(await noQuery.json()).toMatchObject({ error: { message: expect.stringContaining('query is required'), param: 'query' } });
    const badDoc = await rerank(c, { model: JINA_RERANK, query, documents: ['ok', 42] });
    expect(((await badDoc.json()) as { error: { param: string } }).error.param).toBe('documents.1');
    expect(await balances(h, c)).toEqual(before);
  });
});

describe('Jina channel', () => {
  it('embeddings pass through in the OpenAI shape with Jina\'s usage charged', async () => {
    const c = await addCaller(h);
    const input = ['one two three', 'four five'];
    let res: Awaited<ReturnType<typeof c.client.embeddings.create>> | undefined;
    const cost = await spent(c, async () => {
      res = await c.client.embeddings.create({ model: JINA_EMBED, input, encoding_format: 'float' });
    });
    expect(jina.requests.at(-1)!.body).toEqual({ model: JINA_EMBED, input, encoding_format: 'float' });
    expect(res!.data).toHaveLength(2);
    expect(res!.usage.prompt_tokens).toBe(jinaTokens(input));
    expect(cost).toBe(expectedCharge({ modelRatio: 0.5 }, { prompt: jinaTokens(input) }));
  });

  it('the channel test button works for embedding-only (Jina) and chat (Cohere) types', async () => {
    const j = await h.root.get(`/api/channel/test/${jinaId}`);
    expect(j.body).toMatchObject({ success: true });
    expect(jina.requests.at(-1)!.path).toBe('/v1/embeddings');
    const co = await h.root.get(`/api/channel/test/${cohereId}`);
    expect(co.body).toMatchObject({ success: true });
    expect(lastCohere().path).toBe('/v2/chat');
  });
});
