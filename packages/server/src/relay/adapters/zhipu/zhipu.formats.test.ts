import { providerFixture } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { adapterOf, builtRequest, callOf, classifiedFixture, fixtureBody, replayStream, sseOf } from '../../../test-support/adapter-replay.js';
import { testContext } from '../../../test-support/convert-fixtures.js';
import type { ZhipuV3StreamEvent } from './wire-types.js';

/** Zhipu's documented v3 and v4 bodies (fixtures/) through the two adapters of this folder, for an OpenAI caller. */
const v3 = adapterOf('zhipu');
const v4 = adapterOf('zhipu-v4');
const ch = { key: 'abc123.secretsecret', baseUrl: 'https://open.bigmodel.cn' };
const JWT = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/** A v3 stream fixture as sse-invoke writes it: `event:`, `id:`, `data:` (plain text) and the finish event's `meta:`. */
function sseInvoke(name: string): string {
  const events = providerFixture('zhipu', name).events as ZhipuV3StreamEvent[];
  return events.map((e) => `event:${e.event}\nid:${e.id}\ndata:${e.data}\n${e.meta ? `meta:${JSON.stringify(e.meta)}\n` : ''}\n`).join('');
}

describe('v3: OpenAI → the prompt API', () => {
  it('builds the documented sse-invoke request, authorised by the JWT with no Bearer', async () => {
    const call = callOf(v3, { model: 'chatglm_pro', stream: true, ch });
    const req = await builtRequest(v3, call, { model: 'chatglm_pro', stream: true, messages: [{ role: 'user', content: '你好' }, { role: 'assistant', content: '我是人工智能助手' }, { role: 'user', content: '你叫什么名字' }], temperature: 0.95, top_p: 0.7 });
    expect(req.url).toBe('https://open.bigmodel.cn/api/paas/v3/model-api/chatglm_pro/sse-invoke');
    expect(req.headers.authorization).toMatch(JWT);
    expect(req.body).toEqual(fixtureBody('zhipu', 'v3.chat.request'));
  });
});

describe('v3 answers → OpenAI', () => {
  it('reads data: the quotes around the content removed, escaped newlines restored, task_id as the id', () => {
    const reply = v3.convertResponse(callOf(v3, { model: 'chatglm_pro', ch }), fixtureBody('zhipu', 'v3.chat.response'), testContext('chatglm_pro'))!;
    expect(reply.body).toEqual({
      id: 'chatcmpl-8305987191663349153',
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'chatglm_pro',
      choices: [{ index: 0, message: { role: 'assistant', content: '我叫智谱清言。\n很高兴认识你。', refusal: null }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 18, completion_tokens: 12, total_tokens: 30 },
    });
  });

  it('streams add events as deltas; finish ends with the usage of its meta line', async () => {
    const cx = testContext('chatglm_pro', { stream: true, clientWantsUsage: true });
    const run = await replayStream(v3, callOf(v3, { model: 'chatglm_pro', stream: true, ch }), cx, sseInvoke('v3.chat.stream'));
    const head = { id: 'chatcmpl-8305987216034471735', object: 'chat.completion.chunk', created: expect.any(Number), model: 'chatglm_pro' };
    expect(run.frames).toEqual([
      { ...head, choices: [{ index: 0, delta: { role: 'assistant', content: '你好' }, finish_reason: null }] , usage: null },
      { ...head, choices: [{ index: 0, delta: { content: '，我是智谱清言' }, finish_reason: null }] , usage: null },
      { ...head, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 8, total_tokens: 13 } },
      '[DONE]',
    ]);
    expect(run.usage).toMatchObject({ promptTokens: 5, completionTokens: 8 });
    expect(run.text).toBe('你好，我是智谱清言');
  });

  it('an interrupted event ends the stream as an error, never as content', async () => {
    const run = await replayStream(v3, callOf(v3, { model: 'chatglm_pro', stream: true, ch }), testContext('chatglm_pro', { stream: true }), sseInvoke('v3.chat.stream.interrupted'));
    expect(run.text).toBe('关于这个');
    expect(run.error).toMatchObject({ code: 'interrupted', message: '内容包含敏感词' });
    expect(run.frames.at(-1)).toEqual({ error: expect.objectContaining({ code: 'interrupted', message: '内容包含敏感词' }) });
  });

  it('success:false is an error reply with its code and msg', () => {
    expect(v3.isErrorReply!(callOf(v3, { model: 'chatglm_pro', ch }), fixtureBody('zhipu', 'v3.error'))).toBe(true);
    expect(v3.isErrorReply!(callOf(v3, { model: 'chatglm_pro', ch }), fixtureBody('zhipu', 'v3.chat.response'))).toBe(false);
    // Classified as the upstream client does a 200 error reply (upstream-client.ts errorReply: 500).
    expect(v3.classifyError(500, 500, JSON.stringify(fixtureBody('zhipu', 'v3.error')))).toEqual({ status: 500, type: 'zhipu_error', code: '1261', param: null, message: 'Prompt 超长', retryable: true, disablesChannel: false });
  });
});

describe('v4: OpenAI → GLM-4 chat', () => {
  it('keeps the documented fields only: user becomes user_id, a string stop a list, stream_options and n dropped', async () => {
    const call = callOf(v4, { model: 'glm-4-plus', ch });
    const req = await builtRequest(v4, call, {
      model: 'glm-4-plus',
      messages: [{ role: 'system', content: '你是一个乐于解答各种问题的助手。' }, { role: 'user', content: '你好' }],
      stream: false,
      temperature: 0.95,
      top_p: 0.7,
      max_tokens: 1024,
      stop: '<|endoftext|>',
      do_sample: true,
      request_id: 'req-20240601',
      user: 'user-42',
      n: 1,
      presence_penalty: 0.5,
    });
    expect(req.url).toBe('https://open.bigmodel.cn/api/paas/v4/chat/completions');
    expect(req.headers.authorization).toMatch(JWT);
    expect(req.body).toEqual(fixtureBody('zhipu', 'v4.chat.request'));
  });
});

describe('v4 answers → OpenAI', () => {
  const chat = (name: string) => v4.convertResponse(callOf(v4, { model: 'glm-4-plus', ch }), fixtureBody('zhipu', name), testContext('glm-4-plus'));

  it('reads the answer and its usage', () => {
    const reply = chat('v4.chat.response')!;
    expect(reply.usage).toMatchObject({ promptTokens: 20, completionTokens: 10 });
    expect(reply.text()).toBe('你好！有什么可以帮你的吗？');
  });

  it('reads cached prompt tokens and counts the thinking text', () => {
    const reply = chat('v4.usage.cache-reasoning')!;
    expect(reply.usage).toMatchObject({ promptTokens: 2048, completionTokens: 12, cachedTokens: 1536 });
    expect(reply.text()).toBe('21+1 等于 2。');
  });

  it('streams the chunks; the last carries finish_reason and the usage', async () => {
    const cx = testContext('glm-4-plus', { stream: true, clientWantsUsage: true });
    const run = await replayStream(v4, callOf(v4, { model: 'glm-4-plus', stream: true, ch }), cx, sseOf(providerFixture('zhipu', 'v4.chat.stream'), { done: true }));
    expect(run.text).toBe('土星');
    expect(run.usage).toMatchObject({ promptTokens: 60, completionTokens: 2 });
    expect(run.usageFinal).toBe(true);
    expect(run.frames.at(-1)).toBe('[DONE]');
  });

  it('errors keep Zhipu string codes; 1002 (bad token) switches the channel off', () => {
    expect(classifiedFixture(v4, 'zhipu', 'v4.error.unknown-model')).toMatchObject({ status: 400, code: '1211', message: '模型不存在，请检查模型代码。', retryable: false, disablesChannel: false });
    expect(classifiedFixture(v4, 'zhipu', 'v4.error.auth')).toMatchObject({ status: 401, code: '1002', disablesChannel: true });
    expect(classifiedFixture(v4, 'zhipu', 'v4.error.arrears')).toMatchObject({ status: 429, code: '1113', message: '您的账户已欠费，请充值后重试。' });
  });
});
