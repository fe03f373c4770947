import { FAKE_CLOUDFLARE_ACCOUNT, startFakeCloudflare, type FakeCloudflare, expectedChatUsage, expectedGeminiUsage, expectedMessagesUsage, startFakeAnthropic, startFakeBedrock, startFakeCohere, startFakeGemini, startFakeVertex, makeServiceAccount, cohereChatInputTokens, startFakeBaidu, FAKE_BAIDU_KEY, baiduPromptTokens, type FakeBaidu, startFakeDashScope, FAKE_DASHSCOPE_KEY, dashscopePromptTokens, type FakeDashScope, startFakeHunyuan, FAKE_TENCENT_KEY, hunyuanPromptTokens, type FakeHunyuan, startFakeZhipu, FAKE_ZHIPU_KEY, startFakePalm, FAKE_PALM_REPLY, type FakePalm, startFakeOllama, type FakeOllama, startFakeDify, FAKE_DIFY_ANSWER, difyTokens, type FakeDify, zhipuPromptTokens, type FakeZhipu, startFakeSpark, FAKE_SPARK_KEY, sparkPromptTokens, type FakeSpark, startFakeAIProxyLibrary, FAKE_AIPROXY_LIBRARY_ID, type FakeAIProxyLibrary, type FakeAnthropic, type FakeBedrock, type FakeCohere, type FakeGemini, type FakeVertex } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCaller, addChannel, anthropicClient, consumeLogs, priceModels, startRelayHarness, type RelayHarness, type TestCaller } from '../../test-support/relay-fixtures.js';
import { startRecordingProxy } from '../../test-support/recording-proxy.js';
import { outputCap } from '../billing/output-caps.js';
import { DEFAULT_SAFETY_SETTINGS } from './gemini/formats/openai-gemini/request.js';
import { ADAPTERS } from './registry.js';

/**
 * The shared contract suite: every registered adapter, through the real pipeline with the
 * official SDKs as callers (OpenAI chat and Anthropic Messages), against the testkit fake of the
 * format the adapter speaks (behind a recording hop so the adapter's own URL, headers and body can
 * be asserted).
 */
let h: RelayHarness;
let anthropicFake: FakeAnthropic;
let geminiFake: FakeGemini;
let bedrockFake: FakeBedrock;
let vertexFake: FakeVertex;
let cohereFake: FakeCohere;
let cloudflareFake: FakeCloudflare;
let zhipuFake: FakeZhipu;
let baiduFake: FakeBaidu;
let dashscopeFake: FakeDashScope;
let hunyuanFake: FakeHunyuan;
let palmFake: FakePalm;
let ollamaFake: FakeOllama;
let difyFake: FakeDify;
let sparkFake: FakeSpark;
let libraryFake: FakeAIProxyLibrary;
let proxies: Record<Kind, Awaited<ReturnType<typeof startRecordingProxy>>>;
let caller: TestCaller;

beforeAll(async () => {
  h = await startRelayHarness();
  anthropicFake = await startFakeAnthropic();
  geminiFake = await startFakeGemini();
  bedrockFake = await startFakeBedrock();
  const sa = makeServiceAccount({ tokenUri: '' });
  vertexFake = await startFakeVertex({ serviceAccounts: [sa.account] });
  cohereFake = await startFakeCohere();
  cloudflareFake = await startFakeCloudflare();
  zhipuFake = await startFakeZhipu();
  baiduFake = await startFakeBaidu();
  dashscopeFake = await startFakeDashScope();
  hunyuanFake = await startFakeHunyuan();
  palmFake = await startFakePalm({ apiKeys: [KEYS.palm!] });
  difyFake = await startFakeDify({ appKeys: [KEYS.dify!] });
  ollamaFake = await startFakeOllama({ models: ['llama3.2', 'nomic-embed-text'] });
  sparkFake = await startFakeSpark();
  libraryFake = await startFakeAIProxyLibrary({ answer: UPSTREAM['aiproxy-library'].text, documents: [] });
  KEYS.vertex = JSON.stringify({ ...sa.key, token_uri: vertexFake.tokenUri });
  // The channel reaches the fake through a recording proxy, so the key's token_uri is another host: fetched through the guard, which needs loopback allowed.
  await h.server.ctx.options.set('OutboundAllowedRanges', '127.0.0.1/32');
  proxies = {
    openai: await startRecordingProxy(h.fake.url),
    anthropic: await startRecordingProxy(anthropicFake.url, { passthrough: true }),
    gemini: await startRecordingProxy(geminiFake.url, { passthrough: true }),
    // SigV4 signs the Host header: the hop keeps it.
    bedrock: await startRecordingProxy(bedrockFake.url, { passthrough: true, keepHost: true }),
    vertex: await startRecordingProxy(vertexFake.url, { passthrough: true }),
    cohere: await startRecordingProxy(cohereFake.url, { passthrough: true }),
    cloudflare: await startRecordingProxy(cloudflareFake.url, { passthrough: true }),
    zhipu: await startRecordingProxy(zhipuFake.url, { passthrough: true }),
    'zhipu-v4': await startRecordingProxy(zhipuFake.url, { passthrough: true }),
    baidu: await startRecordingProxy(baiduFake.url, { passthrough: true }),
    ali: await startRecordingProxy(dashscopeFake.url, { passthrough: true }),
    // TC3 signs the Host header: the hop keeps it.
    tencent: await startRecordingProxy(hunyuanFake.url, { passthrough: true, keepHost: true }),
    palm: await startRecordingProxy(palmFake.url, { passthrough: true }),
    ollama: await startRecordingProxy(ollamaFake.url, { passthrough: true }),
    dify: await startRecordingProxy(difyFake.url, { passthrough: true }),
    'aiproxy-library': await startRecordingProxy(libraryFake.url, { passthrough: true }),
    // A WebSocket upstream: no HTTP hop; what the fake received (the signed query, the request frame) is read back.
    spark: {
      url: sparkFake.url,
      get seen() {
        return sparkFake.requests.map((r) => ({ method: 'GET', url: r.path, headers: r.query, body: Buffer.from(JSON.stringify(r.frame ?? null)) }));
      },
      close: () => Promise.resolve(),
    },
  };
  // Each case's caller-facing model names: priced, since an unpriced model is refused before any upstream call.
  await priceModels(h, cases.flatMap(({ type }) => [`contract-${type}`, `contract-${type}-embed`]));
  caller = await addCaller(h, { quota: 100_000_000, remain: 100_000_000 });
});
afterAll(async () => {
  await proxies.openai.close();
  await proxies.anthropic.close();
  await proxies.gemini.close();
  await proxies.bedrock.close();
  await bedrockFake.close();
  await proxies.vertex.close();
  await vertexFake.close();
  await proxies.cohere.close();
  await cohereFake.close();
  await proxies.cloudflare.close();
  await cloudflareFake.close();
  await proxies.zhipu.close();
  await proxies['zhipu-v4'].close();
  await zhipuFake.close();
  await proxies.baidu.close();
  await baiduFake.close();
  await proxies.ali.close();
  await dashscopeFake.close();
  await proxies.tencent.close();
  await hunyuanFake.close();
  await proxies.palm.close();
  await palmFake.close();
  await proxies.ollama.close();
  await ollamaFake.close();
  await proxies.dify.close();
  await difyFake.close();
  await proxies['aiproxy-library'].close();
  await libraryFake.close();
  await sparkFake.close();
  await anthropicFake.close();
  await geminiFake.close();
  await h.close();
});

/** Where each adapter must send a chat request for the mapped model (provider docs; reference §11). */
const CHAT_PATH: Record<string, string> = {
  azure: '/openai/deployments/gpt-4o-mini/chat/completions?api-version=2024-10-21',
  custom: '/custom/gpt-4o-mini/chat',
  deepseek: '/chat/completions',
  perplexity: '/chat/completions',
  minimax: '/v1/text/chatcompletion_v2',
  anthropic: '/v1/messages',
  gemini: '/v1beta/models/gemini-2.0-flash:generateContent',
  bedrock: '/model/us.anthropic.claude-3-5-haiku-20241022-v1%3A0/invoke',
  vertex: '/v1/projects/fake-project/locations/us-central1/publishers/google/models/gemini-2.0-flash:generateContent',
  cohere: '/v2/chat',
  cloudflare: `/client/v4/accounts/${FAKE_CLOUDFLARE_ACCOUNT}/ai/v1/chat/completions`,
  zhipu: '/api/paas/v3/model-api/chatglm_pro/invoke',
  'zhipu-v4': '/api/paas/v4/chat/completions',
  baidu: '/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions_pro',
  ali: '/api/v1/services/aigc/text-generation/generation',
  tencent: '/',
  palm: '/v1beta2/models/chat-bison-001:generateMessage?key=AIzaSyContractPalmKey_0000',
  dify: '/v1/chat-messages',
  spark: '/v3.5/chat',
  'aiproxy-library': '/api/library/ask',
};

/** What each upstream format's fake answers, and the model a channel maps to. */
const UPSTREAM = {
  openai: { text: 'Hello from the fake OpenAI', model: 'gpt-4o-mini' },
  anthropic: { text: 'Hello from the fake Claude', model: 'claude-3-5-haiku-20241022' },
  gemini: { text: 'Hello from the fake Gemini', model: 'gemini-2.0-flash' },
  bedrock: { text: 'Hello from the fake Claude', model: 'claude-3-5-haiku-20241022' },
  vertex: { text: 'Hello from the fake Gemini', model: 'gemini-2.0-flash' },
  cohere: { text: 'Hello from the fake Cohere', model: 'command-r-08-2024' },
  cloudflare: { text: 'Hello from the fake OpenAI', model: '@cf/meta/llama-3.1-8b-instruct' },
  zhipu: { text: 'Hello from the fake Zhipu', model: 'chatglm_pro' },
  'zhipu-v4': { text: 'Hello from the fake Zhipu', model: 'glm-4', embed: 'embedding-3' },
  baidu: { text: 'Hello from the fake ERNIE', model: 'ERNIE-4.0-8K', embed: 'Embedding-V1' },
  ali: { text: 'Hello from the fake Qwen', model: 'qwen-plus', embed: 'text-embedding-v3' },
  tencent: { text: 'Hello from the fake Hunyuan', model: 'hunyuan-pro' },
  palm: { text: FAKE_PALM_REPLY, model: 'chat-bison-001' },
  ollama: { text: 'Hello from the fake OpenAI', model: 'llama3.2', embed: 'nomic-embed-text' },
  dify: { text: FAKE_DIFY_ANSWER, model: 'dify' },
  spark: { text: 'Hello from the fake Spark', model: 'SparkDesk-v3.5' },
  'aiproxy-library': { text: 'Hello from the fake library', model: 'gpt-3.5-turbo' },
} as const satisfies Record<string, { text: string; model: string; embed?: string }>;
/** The upstream embeddings model of a kind whose chat model does not embed (a second mapped model). */
const embedModelOf = (k: Kind): string | undefined => (UPSTREAM[k] as { embed?: string }).embed;

/** Keys of types whose key has a checked format (the others get `key-<type>`); Vertex's is made once its fake listens. */
const KEYS: Record<string, string> = { bedrock: 'AKIDFAKE|fake-secret|us-east-1', zhipu: FAKE_ZHIPU_KEY, 'zhipu-v4': FAKE_ZHIPU_KEY, baidu: FAKE_BAIDU_KEY, ali: FAKE_DASHSCOPE_KEY, tencent: FAKE_TENCENT_KEY, palm: 'AIzaSyContractPalmKey_0000', dify: 'app-contract-key', spark: FAKE_SPARK_KEY };

type Kind = keyof typeof UPSTREAM;
const KIND = { 'anthropic-messages': 'anthropic', gemini: 'gemini' } as const;
/** The fake an adapter is tested against: its own when it has one (a signed or differently framed upstream), else its chat format's. */
const kindOf = (slug: string, format: string | undefined): Kind => (slug in UPSTREAM ? (slug as Kind) : (KIND[format as keyof typeof KIND] ?? 'openai'));
const cases = ADAPTERS.flatMap((a) => a.types.map((type) => ({ slug: a.slug, type, adapter: a, kind: kindOf(a.slug, a.formats.chat?.[0]) })));

describe.each(cases)('adapter $slug (type $type)', ({ slug, type, adapter, kind }) => {
  const model = `contract-${type}`;
  const up = UPSTREAM[kind];
  let channelId = 0;

  beforeAll(async () => {
    const proxy = proxies[kind];
    const base = slug === 'custom' ? `${proxy.url}/custom/{model}/chat` : proxy.url;
    channelId = await addChannel(h.root, {
      type,
      base_url: base,
      key: KEYS[slug] ?? `key-${type}`,
      models: embedModelOf(kind) ? `${model},${model}-embed` : model,
      other: slug === 'azure' ? '2024-10-21' : slug === 'cloudflare' ? FAKE_CLOUDFLARE_ACCOUNT : slug === 'aiproxy-library' ? FAKE_AIPROXY_LIBRARY_ID : '',
      model_mapping: JSON.stringify({ [model]: up.model, ...(embedModelOf(kind) ? { [`${model}-embed`]: embedModelOf(kind) } : {}) }),
    });
  });

  const messages = [{ role: 'user' as const, content: 'one two three' }];
  const lastSent = () => {
    const sent = proxies[kind].seen.at(-1)!;
    return { ...sent, json: JSON.parse(sent.body.toString()) as Record<string, unknown> };
  };

  it.runIf(adapter.modes.has('chat'))('relays a chat completion: URL, auth header, body, usage billed', async () => {
    proxies[kind].seen.length = 0;
    const res = await caller.client.chat.completions.create({ model, messages, temperature: 0, user: 'u-1', metadata: { a: 'b' } } as never);
    expect((res as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe(up.text);
    const sent = lastSent();
    // Baidu's access token travels in the query.
    expect(kind === 'baidu' ? sent.url.split('?')[0] : sent.url).toBe(CHAT_PATH[slug] ?? '/v1/chat/completions');
    if (slug === 'azure') expect(sent.headers['api-key']).toBe(`key-${type}`);
    else if (kind === 'anthropic') expect(sent.headers).toMatchObject({ 'x-api-key': `key-${type}`, 'anthropic-version': '2023-06-01' });
    else if (kind === 'gemini') expect(sent.headers['x-goog-api-key']).toBe(`key-${type}`);
    else if (kind === 'vertex') expect(sent.headers.authorization).toMatch(/^Bearer ya29\./);
    else if (kind === 'tencent') expect(sent.headers.authorization).toMatch(/^TC3-HMAC-SHA256 Credential=AKIDfakeHunyuanSecretId0001\/\d{4}-\d{2}-\d{2}\/hunyuan\/tc3_request, SignedHeaders=content-type;host;x-tc-action, Signature=[0-9a-f]{64}$/);
    else if (kind === 'ali') expect(sent.headers.authorization).toBe(`Bearer ${FAKE_DASHSCOPE_KEY}`);
    else if (kind === 'baidu') expect(sent.url).toMatch(/\?access_token=24\./);
    else if (kind === 'zhipu' || kind === 'zhipu-v4') expect(sent.headers.authorization).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
    else if (kind === 'palm') expect(sent.headers.authorization).toBeUndefined();
    else if (kind === 'dify') expect(sent.headers.authorization).toBe('Bearer app-contract-key');
    else if (kind === 'spark') expect(Buffer.from(String(sent.headers.authorization), 'base64').toString()).toMatch(/^api_key="fakeSparkApiKey0000000000000001", algorithm="hmac-sha256", headers="host date request-line", signature="[\w+/]+=*"$/);
    else if (kind === 'aiproxy-library') expect(sent.headers['api-key']).toBe(`key-${type}`);
    else if (kind === 'bedrock') expect(sent.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDFAKE\/\d{8}\/us-east-1\/bedrock\/aws4_request, /);
    else expect(sent.headers.authorization).toBe(`Bearer key-${type}`);
    const log = (await consumeLogs(h, caller.userId)).at(-1)!;
    expect(Number(log.channel_id)).toBe(channelId);
    if (kind === 'openai' || kind === 'cloudflare' || kind === 'ollama') {
      // Passed through: unknown fields and zero values reach the upstream untouched.
      expect(sent.json).toMatchObject({ model: up.model, temperature: 0, user: 'u-1', metadata: { a: 'b' } });
      expect(Number(log.prompt_tokens)).toBe(expectedChatUsage({ messages }).prompt_tokens);
    } else if (kind === 'gemini' || kind === 'vertex') {
      // Converted: roles and parts, default safety settings; `user` and `metadata` are account features left out.
      expect(sent.json).toEqual({ contents: [{ role: 'user', parts: [{ text: 'one two three' }] }], generationConfig: { temperature: 0 }, safetySettings: DEFAULT_SAFETY_SETTINGS });
      expect(Number(log.prompt_tokens)).toBe(expectedGeminiUsage(sent.json).promptTokenCount);
    } else if (kind === 'cohere') {
      // Converted to Chat v2: roles kept, `user` and `metadata` left out (account features).
      expect(sent.json).toEqual({ model: up.model, messages, temperature: 0 });
      expect(Number(log.prompt_tokens)).toBe(cohereChatInputTokens(sent.json));
    } else if (kind === 'zhipu-v4') {
      // Reduced to Zhipu's documented fields: `user` becomes `user_id`, `metadata` is left out.
      expect(sent.json).toEqual({ model: up.model, messages, temperature: 0, user_id: 'u-1' });
      expect(Number(log.prompt_tokens)).toBe(zhipuPromptTokens(sent.json));
    } else if (kind === 'tencent') {
      // Hunyuan's ChatCompletions body: the model in the body, `user` and `metadata` left out.
      expect(sent.json).toEqual({ Model: up.model, Messages: [{ Role: 'user', Content: 'one two three' }], Stream: false, Temperature: 0 });
      expect(Number(log.prompt_tokens)).toBe(hunyuanPromptTokens(sent.json));
    } else if (kind === 'ali') {
      // DashScope text-generation: messages under `input`, sampling under `parameters`.
      expect(sent.json).toEqual({ model: up.model, input: { messages }, parameters: { result_format: 'message', temperature: 0 } });
      expect(Number(log.prompt_tokens)).toBe(dashscopePromptTokens(sent.json));
    } else if (kind === 'baidu') {
      // ERNIE's body: a temperature of 0 is left to the model's default (ERNIE's range excludes it).
      expect(sent.json).toEqual({ messages, user_id: 'u-1' });
      expect(Number(log.prompt_tokens)).toBe(baiduPromptTokens(sent.json));
    } else if (kind === 'zhipu') {
      // v3's `prompt` request: the model is in the path.
      expect(sent.json).toEqual({ prompt: messages, temperature: 0 });
      expect(Number(log.prompt_tokens)).toBe(zhipuPromptTokens(sent.json));
    } else if (kind === 'dify') {
      // One flattened query for the app, per-user `user`, nothing of OpenAI's sampling (the app decides); Dify's usage billed.
      expect(sent.json).toEqual({ inputs: {}, query: 'USER: \none two three\n', response_mode: 'blocking', user: `modelgate-user-${caller.userId}` });
      expect(Number(log.prompt_tokens)).toBe(difyTokens(String(sent.json.query)));
    } else if (kind === 'spark') {
      // The request frame: the version's domain, the app id and a per-user uid; Spark's range excludes a temperature of 0 (left out).
      expect(sent.json).toEqual({ header: { app_id: 'fakeapp1', uid: `user-${caller.userId}` }, parameter: { chat: { domain: 'generalv3.5' } }, payload: { message: { text: messages } } });
      expect(Number(log.prompt_tokens)).toBe(sparkPromptTokens(sent.json));
    } else if (kind === 'aiproxy-library') {
      // The last user message asked of the channel's library; no usage comes back: counted locally (OpenAI's rule, as PaLM).
      expect(sent.json).toEqual({ model: up.model, query: 'one two three', libraryId: FAKE_AIPROXY_LIBRARY_ID, stream: false });
      expect(Number(log.prompt_tokens)).toBe(10);
    } else if (kind === 'palm') {
      // generateMessage's prompt (the model and key are in the URL); PaLM reports no usage: counted locally.
      expect(sent.json).toEqual({ prompt: { messages: [{ author: '0', content: 'one two three' }] }, candidateCount: 1, temperature: 0 });
      // OpenAI's counting rule: 3 content tokens + 4 for the message + 3 priming the reply.
      expect(Number(log.prompt_tokens)).toBe(10);
    } else if (kind === 'bedrock') {
      // Messages without model and stream (the path names them), the version in the body.
      expect(sent.json).toEqual({ anthropic_version: 'bedrock-2023-05-31', max_tokens: outputCap(up.model), messages, temperature: 0, metadata: { user_id: 'u-1' } });
      expect(Number(log.prompt_tokens)).toBe(expectedMessagesUsage({ ...sent.json, model: up.model }).input_tokens);
    } else {
      // Converted: Messages requires max_tokens (the model's output cap), `user` becomes metadata.user_id.
      expect(sent.json).toEqual({ model: up.model, max_tokens: outputCap(up.model), messages, temperature: 0, metadata: { user_id: 'u-1' } });
      expect(Number(log.prompt_tokens)).toBe(expectedMessagesUsage(sent.json).input_tokens);
    }
  });

  it.runIf(adapter.modes.has('chat'))('relays a stream with usage either reported or counted', async () => {
    proxies[kind].seen.length = 0;
    const stream = await caller.client.chat.completions.create({ model, messages, stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: { completion_tokens: number } | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(up.text);
    expect(usage?.completion_tokens).toBeGreaterThan(0);
    const body = lastSent().json;
    if (kind === 'anthropic') expect(body).toMatchObject({ stream: true });
    if (kind === 'gemini') expect(lastSent().url).toBe('/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse');
    if (kind === 'bedrock') expect(lastSent().url).toBe('/model/us.anthropic.claude-3-5-haiku-20241022-v1%3A0/invoke-with-response-stream');
    if (kind === 'vertex') expect(lastSent().url).toBe('/v1/projects/fake-project/locations/us-central1/publishers/google/models/gemini-2.0-flash:streamGenerateContent?alt=sse');
    if ((kind === 'openai' || kind === 'ollama') && adapter.streamOptions) expect(body.stream_options).toEqual({ include_usage: true });
    else expect(body.stream_options).toBeUndefined();
  });

  it.runIf(adapter.modes.has('chat'))('serves an Anthropic Messages caller (passed through, or converted to the upstream format)', async () => {
    proxies[kind].seen.length = 0;
    const claude = anthropicClient(h, caller);
    const msg = await claude.messages.create({ model, max_tokens: 50, messages });
    expect(msg).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'text', text: up.text }], stop_reason: 'end_turn' });
    expect(msg.usage.output_tokens).toBe(5);
    const events: string[] = [];
    let streamed = '';
    for await (const ev of await claude.messages.create({ model, max_tokens: 50, messages, stream: true })) {
      events.push(ev.type);
      if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') streamed += ev.delta.text;
    }
    expect(streamed).toBe(up.text);
    expect(events[0]).toBe('message_start');
    expect(events.slice(-2)).toEqual(['message_delta', 'message_stop']);
    if (kind === 'anthropic') expect(lastSent().json).toEqual({ model: up.model, max_tokens: 50, messages, stream: true });
  });

  // A Custom channel is one full URL, so the hop cannot tell an embeddings call from a chat.
  it.runIf(adapter.modes.has('embeddings') && slug !== 'custom')('relays embeddings', async () => {
    const res = await caller.client.embeddings.create({ model: embedModelOf(kind) ? `${model}-embed` : model, input: 'alpha beta' });
    expect(res.data).toHaveLength(1);
    if (kind === 'ollama') expect(proxies.ollama.seen.at(-1)!.url).toBe('/api/embed');
  });

  it.runIf(!adapter.modes.has('images'))('refuses an operation it does not support with a typed error', async () => {
    const err = await caller.client.images.generate({ model, prompt: 'x' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 501, code: 'channel_unsupported' });
  });
});
