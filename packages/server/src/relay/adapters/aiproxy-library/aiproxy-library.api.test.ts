import { FAKE_AIPROXY_ANSWER, FAKE_AIPROXY_DOCUMENTS, FAKE_AIPROXY_LIBRARY_ID, startFakeAIProxyLibrary, type FakeAIProxyLibrary } from '@modelgate/testkit';
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../../../test-support/expected-charge.js';
import { addCaller, addChannel, anthropicClient, balances, consumeLogs, spentBy, startRelayHarness, type RelayHarness, type TestCaller } from '../../../test-support/relay-fixtures.js';

/**
 * AIProxy knowledge base (21): the library ask API through its fake, the official SDKs as callers.
 * The last user message is the question, the library from the channel's knowledge base id, the
 * documents appended as references; no usage comes back, so it is counted locally and charged exactly.
 */
let h: RelayHarness;
let lib: FakeAIProxyLibrary;
let chId = 0;
// A model the library is asked with that has no built-in completion ratio (the test sets both ratios).
const MODEL = 'library-qa';
const KEY = 'aiproxy-key-0001';
const LIST = `1. [${FAKE_AIPROXY_DOCUMENTS[0]!.title}](${FAKE_AIPROXY_DOCUMENTS[0]!.url})\n2. [${FAKE_AIPROXY_DOCUMENTS[1]!.title}](${FAKE_AIPROXY_DOCUMENTS[1]!.url})`;
/** The answer with its references, headed in the caller's language (Accept-Language; Chinese by default). */
const ANSWER_EN = `${FAKE_AIPROXY_ANSWER}\n\nReferences:\n${LIST}`;
const ANSWER_ZH = `${FAKE_AIPROXY_ANSWER}\n\n参考文档：\n${LIST}`;
const messages = [
  { role: 'system' as const, content: 'Answer from the library' },
  { role: 'user' as const, content: 'What was my first question?' },
  { role: 'assistant' as const, content: 'You have not asked one yet.' },
  { role: 'user' as const, content: 'What does ModelGate do?' },
];

beforeAll(async () => {
  h = await startRelayHarness();
  lib = await startFakeAIProxyLibrary({ apiKeys: [KEY] });
  await h.server.ctx.options.set('ModelRatio', JSON.stringify({ [MODEL]: 2 }));
  await h.server.ctx.options.set('CompletionRatio', JSON.stringify({ [MODEL]: 3 }));
  chId = await addChannel(h.root, { type: 21, key: KEY, base_url: lib.url, other: FAKE_AIPROXY_LIBRARY_ID, models: MODEL });
});
afterAll(async () => {
  await lib.close();
  await h.close();
});

const last = () => lib.requests.at(-1)!;
const charge = (prompt: number, completion: number) => expectedCharge({ modelRatio: 2, completionRatio: 3 }, { prompt, completion });

const spent = (c: TestCaller, fn: () => Promise<unknown>) => spentBy(h, c, fn);

describe('AIProxy knowledge base', () => {
  it('chat: the last user message asked of the channel\'s library, references appended, usage counted locally and charged', async () => {
    const c = await addCaller(h);
    let res: Awaited<ReturnType<typeof c.client.chat.completions.create>> | undefined;
    const cost = await spent(c, async () => {
      res = await c.client.chat.completions.create({ model: MODEL, messages }, { headers: { 'accept-language': 'en' } });
    });
    expect(last().rejected).toBeUndefined();
    expect(last().path).toBe('/api/library/ask');
    expect(last().headers['api-key']).toBe(KEY);
    expect(last().body).toEqual({ model: MODEL, query: 'What does ModelGate do?', libraryId: FAKE_AIPROXY_LIBRARY_ID, stream: false });
    const r = res as { choices: Array<{ message: { content: string }; finish_reason: string }>; usage: { prompt_tokens: number; completion_tokens: number } };
    expect(r.choices[0]).toMatchObject({ message: { content: ANSWER_EN }, finish_reason: 'stop' });
    expect(r.usage.completion_tokens).toBe(countTokens(ANSWER_EN));
    expect(r.usage.prompt_tokens).toBeGreaterThan(0);
    expect(cost).toBe(charge(r.usage.prompt_tokens, r.usage.completion_tokens));
    const log = (await consumeLogs(h, c.userId))[0]!;
    expect(log).toMatchObject({ model_name: MODEL, channel_id: chId, prompt_tokens: r.usage.prompt_tokens, completion_tokens: r.usage.completion_tokens, quota: cost });
    const after = await balances(h, c);
    expect(after.userUsed).toBe(cost);
    expect(after.tokenUsed).toBe(cost);
  });

  it('stream: content events become chunks, the finishing one carries the references; the counted usage is billed and reported', async () => {
    const c = await addCaller(h);
    let text = '';
    let usage: { prompt_tokens: number; completion_tokens: number } | undefined | null;
    let finish: string | null | undefined;
    const cost = await spent(c, async () => {
      // The references heading in the language the caller asks for.
      for await (const chunk of await c.client.chat.completions.create({ model: MODEL, messages, stream: true, stream_options: { include_usage: true } }, { headers: { 'accept-language': 'zh-CN' } })) {
        text += chunk.choices[0]?.delta?.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
        if (chunk.usage) usage = chunk.usage;
      }
    });
    expect(last().body).toEqual({ model: MODEL, query: 'What does ModelGate do?', libraryId: FAKE_AIPROXY_LIBRARY_ID, stream: true });
    expect(text).toBe(ANSWER_ZH);
    expect(finish).toBe('stop');
    expect(usage!.completion_tokens).toBe(countTokens(ANSWER_ZH));
    expect(cost).toBe(charge(usage!.prompt_tokens, usage!.completion_tokens));
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ prompt_tokens: usage!.prompt_tokens, completion_tokens: usage!.completion_tokens, quota: cost });
  });

  it('Anthropic callers get the answer with its references (in English when they name no language)', async () => {
    const c = await addCaller(h);
    const msg = await anthropicClient(h, c).messages.create({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'What does ModelGate do?' }] });
    expect(msg.content[0]).toMatchObject({ type: 'text', text: ANSWER_EN });
    expect(msg.usage.output_tokens).toBe(countTokens(ANSWER_EN));
  });

  it('success:false is an error carrying AIProxy\'s message; nothing charged', async () => {
    const c = await addCaller(h);
    lib.setFault({ errCode: 1003, message: 'the library is still being indexed', times: 1 });
    const before = await balances(h, c);
    const err = (await c.client.chat.completions.create({ model: MODEL, messages }).catch((e: unknown) => e)) as { status: number; message: string; code: string };
    expect(last().rejected).toMatchObject({ errCode: 1003 });
    expect(err.message).toContain('the library is still being indexed');
    expect(err.code).toBe('1003');
    expect(await balances(h, c)).toEqual(before);
  });

  it('a request with no user message is refused before asking', async () => {
    const c = await addCaller(h);
    const calls = lib.requests.length;
    const err = (await c.client.chat.completions.create({ model: MODEL, messages: [{ role: 'system', content: 'only a system prompt' }] }).catch((e: unknown) => e)) as { status: number; message: string };
    expect(err.status).toBe(400);
    expect(err.message).toContain('last user message');
    expect(lib.requests).toHaveLength(calls);
  });

  it('the channel test button asks the library', async () => {
    const tested = await h.root.get(`/api/channel/test/${chId}`);
    expect(tested.body).toMatchObject({ success: true, message: '' });
    expect(last().body).toMatchObject({ query: 'hi', libraryId: FAKE_AIPROXY_LIBRARY_ID });
  });
});
