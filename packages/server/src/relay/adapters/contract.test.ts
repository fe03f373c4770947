import { expectedChatUsage } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCaller, addChannel, consumeLogs, startRelayHarness, type RelayHarness, type TestCaller } from '../../test-support/relay-fixtures.js';
import { startRecordingProxy } from '../../test-support/recording-proxy.js';
import { ADAPTERS } from './registry.js';

/**
 * The shared contract suite: every registered adapter, through the real pipeline with the
 * official SDK as the client, against the fake OpenAI upstream (behind a recording hop so the
 * adapter's own URL and headers can be asserted).
 */
let h: RelayHarness;
let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
let caller: TestCaller;

beforeAll(async () => {
  h = await startRelayHarness();
  proxy = await startRecordingProxy(h.fake.url);
  caller = await addCaller(h, { quota: 100_000_000, remain: 100_000_000 });
});
afterAll(async () => {
  await proxy.close();
  await h.close();
});

/** Where each adapter must send a chat request for model `gpt-4o-mini` (provider docs; reference §11). */
const CHAT_PATH: Record<string, string> = {
  azure: '/openai/deployments/gpt-4o-mini/chat/completions?api-version=2024-10-21',
  custom: '/custom/gpt-4o-mini/chat',
  deepseek: '/chat/completions',
  perplexity: '/chat/completions',
  minimax: '/v1/text/chatcompletion_v2',
};

const cases = ADAPTERS.flatMap((a) => a.types.map((type) => ({ slug: a.slug, type, adapter: a })));

describe.each(cases)('adapter $slug (type $type)', ({ slug, type, adapter }) => {
  const model = `contract-${type}`;
  let channelId = 0;

  beforeAll(async () => {
    const base = slug === 'custom' ? `${proxy.url}/custom/{model}/chat` : proxy.url;
    channelId = await addChannel(h.root, {
      type,
      base_url: base,
      key: `key-${type}`,
      models: model,
      other: slug === 'azure' ? '2024-10-21' : '',
      model_mapping: JSON.stringify({ [model]: 'gpt-4o-mini' }),
    });
  });

  const messages = [{ role: 'user' as const, content: 'one two three' }];

  it('relays a chat completion: URL, auth header, body passed through, usage billed', async () => {
    proxy.seen.length = 0;
    const res = await caller.client.chat.completions.create({ model, messages, temperature: 0, user: 'u-1', metadata: { a: 'b' } } as never);
    expect((res as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe('Hello from the fake OpenAI');
    const sent = proxy.seen.at(-1)!;
    expect(sent.url).toBe(CHAT_PATH[slug] ?? '/v1/chat/completions');
    if (slug === 'azure') expect(sent.headers['api-key']).toBe(`key-${type}`);
    else expect(sent.headers.authorization).toBe(`Bearer key-${type}`);
    const body = JSON.parse(sent.body.toString()) as Record<string, unknown>;
    expect(body).toMatchObject({ model: 'gpt-4o-mini', temperature: 0, user: 'u-1', metadata: { a: 'b' } });
    const log = (await consumeLogs(h, caller.userId)).at(-1)!;
    expect(Number(log.channel_id)).toBe(channelId);
    expect(Number(log.prompt_tokens)).toBe(expectedChatUsage({ messages }).prompt_tokens);
  });

  it('relays a stream with usage either reported or counted', async () => {
    proxy.seen.length = 0;
    const stream = await caller.client.chat.completions.create({ model, messages, stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: { completion_tokens: number } | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Hello from the fake OpenAI');
    expect(usage?.completion_tokens).toBeGreaterThan(0);
    const body = JSON.parse(proxy.seen.at(-1)!.body.toString()) as Record<string, unknown>;
    if (adapter.streamOptions) expect(body.stream_options).toEqual({ include_usage: true });
    else expect(body.stream_options).toBeUndefined();
  });

  // A Custom channel is one full URL, so the hop cannot tell an embeddings call from a chat.
  it.runIf(adapter.modes.has('embeddings') && slug !== 'custom')('relays embeddings', async () => {
    const res = await caller.client.embeddings.create({ model, input: 'alpha beta' });
    expect(res.data).toHaveLength(1);
  });

  it.runIf(!adapter.modes.has('images'))('refuses an operation it does not support with a typed error', async () => {
    const err = await caller.client.images.generate({ model, prompt: 'x' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 501, code: 'channel_unsupported' });
  });
});
