import { expectedChatUsage } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge, expectedImageCharge } from '../test-support/expected-charge.js';
import { addCaller, addChannel, balances, consumeLogs, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';

let h: RelayHarness;

beforeAll(async () => {
  h = await startRelayHarness();
  await addChannel(h.root, { name: 'main', base_url: h.fake.url, models: 'gpt-4,gpt-4o-mini,text-embedding-3-small,dall-e-3,dall-e-2,tts-1,whisper-1,gpt-3.5-turbo-instruct,text-moderation-stable' });
});
afterAll(() => h.close());

const messages = [{ role: 'user' as const, content: 'Hello there friend' }];

describe('chat completions', () => {
  it('answers a JSON chat and charges (prompt + completion × completion ratio) × model ratio × group ratio', async () => {
    const c = await addCaller(h, { quota: 1_000_000, remain: 500_000 });
    const before = await balances(h, c);
    const res = await c.client.chat.completions.create({ model: 'gpt-4', messages, temperature: 0 });
    expect(res.choices[0]!.message.content).toBe('Hello from the fake OpenAI');
    const usage = expectedChatUsage({ messages });
    expect(res.usage?.prompt_tokens).toBe(usage.prompt_tokens);
    // gpt-4: model ratio 15, completion ratio 2 (reference §5.1).
    const expected = expectedCharge({ model: 'gpt-4' }, { prompt: usage.prompt_tokens, completion: usage.completion_tokens });
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(expected);
    expect(before.remain - after.remain).toBe(expected);
    expect(after.userUsed).toBe(expected);
    expect(after.tokenUsed).toBe(expected);
    expect(after.requests).toBe(1);
    const logs = await consumeLogs(h, c.userId);
    expect(logs).toHaveLength(1);
    expect(Number(logs[0]!.quota)).toBe(expected);
    expect(logs[0]!.model_name).toBe('gpt-4');
    const other = JSON.parse(logs[0]!.other) as Record<string, unknown>;
    expect(other).toMatchObject({ model_ratio: 15, completion_ratio: 2, group_ratio: 1, model_price: -1, frt: -1000 });
    // Zero values and unknown fields reach the upstream untouched.
    const sent = h.fake.requests.at(-1)!;
    expect((sent.body as Record<string, unknown>).temperature).toBe(0);
    expect(sent.headers.authorization).toBe('Bearer sk-upstream');
  });

  it('streams a chat and charges the streamed usage before [DONE]', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const stream = await c.client.chat.completions.create({ model: 'gpt-4', messages, stream: true });
    let text = '';
    let sawUsage = false;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) sawUsage = true;
    }
    expect(text).toBe('Hello from the fake OpenAI');
    // The client did not ask for usage: the usage-only chunk ModelGate requested is not passed on.
    expect(sawUsage).toBe(false);
    const sent = h.fake.requests.at(-1)!.body as Record<string, unknown>;
    expect(sent.stream_options).toEqual({ include_usage: true });
    const usage = expectedChatUsage({ messages });
    const expected = expectedCharge({ model: 'gpt-4' }, { prompt: usage.prompt_tokens, completion: usage.completion_tokens });
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(expected);
    const logs = await consumeLogs(h, c.userId);
    expect(logs[0]!.is_stream).toBe(1);
    expect((JSON.parse(logs[0]!.other) as { frt: number }).frt).toBeGreaterThanOrEqual(0);
  });

  it('passes the usage chunk on when the client asks for it', async () => {
    const c = await addCaller(h);
    const stream = await c.client.chat.completions.create({ model: 'gpt-4', messages, stream: true, stream_options: { include_usage: true } });
    let usage: unknown;
    for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
    expect(usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 5 });
  });

  it('counts tokens locally when the upstream reports no usage', async () => {
    const c = await addCaller(h);
    h.fake.setFault({ omitUsage: true, times: 2 });
    const before = await balances(h, c);
    const res = await c.client.chat.completions.create({ model: 'gpt-4', messages });
    expect(res.usage).toBeUndefined();
    const logs = await consumeLogs(h, c.userId);
    const log = logs[0]!;
    const { countTokens } = await import('gpt-tokenizer/encoding/cl100k_base');
    expect(Number(log.completion_tokens)).toBe(countTokens('Hello from the fake OpenAI'));
    expect(Number(log.prompt_tokens)).toBe(3 + 3 + countTokens('user') + countTokens('Hello there friend'));
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(expectedCharge({ model: 'gpt-4' }, { prompt: Number(log.prompt_tokens), completion: Number(log.completion_tokens) }));

    const stream = await c.client.chat.completions.create({ model: 'gpt-4', messages, stream: true, stream_options: { include_usage: true } });
    let usage: { completion_tokens: number } | undefined;
    for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
    // A usage chunk is synthesised from the counted tokens when the client asked for one.
    expect(usage?.completion_tokens).toBe(countTokens('Hello from the fake OpenAI'));
    h.fake.setFault(null);
  });
});

describe('other endpoints', () => {
  it('embeddings, completions and moderations are relayed and billed', async () => {
    const c = await addCaller(h);
    const emb = await c.client.embeddings.create({ model: 'text-embedding-3-small', input: ['one two three', 'four'] });
    expect(emb.data).toHaveLength(2);
    const comp = await c.client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say hi' });
    expect(comp.choices[0]!.text).toBeTruthy();
    const mod = await c.client.moderations.create({ input: 'hello world' });
    expect(mod.results).toHaveLength(1);
    const logs = await consumeLogs(h, c.userId);
    expect(logs.map((l) => l.model_name)).toEqual(['text-embedding-3-small', 'gpt-3.5-turbo-instruct', 'text-moderation-stable']);
    expect(Number(logs[0]!.prompt_tokens)).toBe(4);
    // text-embedding-3-small ratio 0.01: 4 tokens → 0.04 → at least 1 quota.
    expect(Number(logs[0]!.quota)).toBe(expectedCharge({ model: 'text-embedding-3-small' }, { prompt: 4 }));
  });

  it('images are charged per call at the fixed price', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const img = await c.client.images.generate({ model: 'dall-e-3', prompt: 'a cat', size: '1024x1024' });
    expect(img.data?.[0]?.url).toBeTruthy();
    const after = await balances(h, c);
    // dall-e-3 ModelPrice $0.04 × 500 000.
    expect(before.quota - after.quota).toBe(expectedImageCharge({ model: 'dall-e-3' }, { size: '1024x1024' }));
  });

  it('speech streams audio back and charges per character', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const res = await c.client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello world' });
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.length).toBe(10 + 16 * 11);
    const after = await balances(h, c);
    // tts-1 ratio 7.5 × 11 characters (the input's characters are billed as prompt tokens).
    expect(before.quota - after.quota).toBe(expectedCharge({ model: 'tts-1' }, { prompt: 'Hello world'.length }));
  });

  it('transcriptions pass the multipart upload through and charge the transcript tokens', async () => {
    const c = await addCaller(h);
    const file = new File([Buffer.alloc(2000, 1)], 'a.mp3', { type: 'audio/mpeg' });
    const res = await c.client.audio.transcriptions.create({ model: 'whisper-1', file });
    expect(res.text).toBe('Fake transcription of 2000 bytes.');
    const sent = h.fake.requests.at(-1)!;
    expect(sent.files?.[0]?.size).toBe(2000);
    const logs = await consumeLogs(h, c.userId);
    const { countTokens } = await import('gpt-tokenizer/encoding/cl100k_base');
    expect(Number(logs[0]!.completion_tokens)).toBe(countTokens(res.text));
    expect(Number(logs[0]!.quota)).toBe(expectedCharge({ model: 'whisper-1' }, { completion: countTokens(res.text) }));
  });

  it('lists the models of the token group', async () => {
    const c = await addCaller(h);
    const list = await c.client.models.list();
    const ids = list.data.map((m) => m.id);
    expect(ids).toContain('gpt-4');
    expect(ids).toContain('whisper-1');
    const one = await c.client.models.retrieve('gpt-4');
    expect(one.id).toBe('gpt-4');
    await expect(c.client.models.retrieve('nope')).rejects.toMatchObject({ status: 404 });
  });
});
