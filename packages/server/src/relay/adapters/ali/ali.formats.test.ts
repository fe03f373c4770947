import { providerFixture, type ProviderFixture } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { adapterOf, builtRequest, callOf, classifiedFixture, fixtureBody, replayStream } from '../../../test-support/adapter-replay.js';
import { testContext } from '../../../test-support/convert-fixtures.js';

/** DashScope's documented native bodies (fixtures/) through the adapter, for an OpenAI caller. */
const adapter = adapterOf('ali');
const ch = { key: 'sk-ali', baseUrl: 'https://dashscope.aliyuncs.com' };

/** A stream fixture as DashScope writes it: `id:`, `event:`, the `:HTTP_STATUS/…` comment and `data:` with no space. */
function dashscopeSse(fx: ProviderFixture, status = 200): string {
  return (fx.events ?? []).map((e, i) => `id:${i + 1}\nevent:${fx.eventNames?.[i] ?? 'result'}\n:HTTP_STATUS/${status}\ndata:${JSON.stringify(e)}\n\n`).join('');
}

describe('OpenAI → DashScope requests', () => {
  it('builds the documented text-generation body: messages under input, knobs under parameters', async () => {
    const call = callOf(adapter, { model: 'qwen-plus', ch });
    const req = await builtRequest(adapter, call, { model: 'qwen-plus', messages: [{ role: 'system', content: 'You are a helpful assistant.' }, { role: 'user', content: '你是谁？' }], max_tokens: 512, temperature: 0.7, top_p: 0.8, seed: 1234 });
    expect(req.url).toBe('https://dashscope.aliyuncs.com/api/v1/services/aigc/text-generation/generation');
    expect(req.headers).toEqual({ authorization: 'Bearer sk-ali' });
    expect(req.body).toEqual(fixtureBody('ali', 'chat.request'));
  });

  it('a stream asks for SSE and incremental output; a -internet model turns web search on', async () => {
    const call = callOf(adapter, { model: 'qwen-plus-internet', stream: true, ch: { ...ch, other: 'plugin-x' } });
    const req = await builtRequest(adapter, call, { model: 'qwen-plus-internet', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    expect(req.headers).toEqual({ authorization: 'Bearer sk-ali', 'x-dashscope-sse': 'enable', 'x-dashscope-plugin': 'plugin-x' });
    expect(req.body).toEqual({ model: 'qwen-plus', input: { messages: [{ role: 'user', content: 'hi' }] }, parameters: { result_format: 'message', incremental_output: true, enable_search: true } });
  });

  it('builds the documented text-embedding body', async () => {
    const call = callOf(adapter, { mode: 'embeddings', inbound: 'openai-embeddings', model: 'text-embedding-v3', ch });
    const req = await builtRequest(adapter, call, { model: 'text-embedding-v3', input: ['风急天高猿啸哀', '渚清沙白鸟飞回'], dimensions: 1024 });
    expect(req.url).toBe('https://dashscope.aliyuncs.com/api/v1/services/embeddings/text-embedding/text-embedding');
    expect(req.body).toEqual(fixtureBody('ali', 'embeddings.request'));
  });
});

describe('DashScope answers → OpenAI', () => {
  const chat = (name: string) => adapter.convertResponse(callOf(adapter, { model: 'qwen-plus', ch }), fixtureBody('ali', name), testContext('qwen-plus'))!;

  it('reads the answer: request_id as the id, input/output tokens as the usage', () => {
    const reply = chat('chat.response');
    expect(reply.body).toEqual({
      id: 'chatcmpl-7f2a3b47-3c0b-9b6c-8b7a-1d4f9e0c2a11',
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'qwen-plus',
      choices: [{ index: 0, message: { role: 'assistant', content: '我是通义千问，由阿里云开发的大语言模型。', refusal: null }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 22, completion_tokens: 17, total_tokens: 39 },
    });
    expect(reply.usage).toMatchObject({ promptTokens: 22, completionTokens: 17 });
  });

  it('passes tool calls on with finish_reason tool_calls', () => {
    expect((chat('chat.response.tool-call').body!.choices as unknown[])[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: '', refusal: null, tool_calls: [{ function: { name: 'get_current_weather', arguments: '{"location": "杭州"}' }, index: 0, id: 'call_1e64d2d4e3a84b7a9c2a8a', type: 'function' }] },
      finish_reason: 'tool_calls',
    });
  });

  it('keeps the thinking text and reports cached and reasoning tokens', () => {
    const reply = chat('usage.cache-reasoning');
    expect((reply.body!.choices as unknown[])[0]).toEqual({ index: 0, message: { role: 'assistant', content: '1+1=2', refusal: null, reasoning_content: '用户问1+1，答案是2。' }, finish_reason: 'stop' });
    expect(reply.body!.usage).toEqual({ prompt_tokens: 1200, completion_tokens: 40, total_tokens: 1240, prompt_tokens_details: { cached_tokens: 1024 }, completion_tokens_details: { reasoning_tokens: 34 } });
    expect(reply.usage).toMatchObject({ promptTokens: 1200, completionTokens: 40, cachedTokens: 1024, reasoningTokens: 34 });
  });

  it('reads the embeddings answer as OpenAI list', () => {
    const reply = adapter.convertResponse(callOf(adapter, { mode: 'embeddings', inbound: 'openai-embeddings', model: 'text-embedding-v3', ch }), fixtureBody('ali', 'embeddings.response'), testContext('text-embedding-v3'))!;
    expect(reply.body).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [-0.0695386752486229, 0.030681096017360687, -0.0179871767759323] },
        { object: 'embedding', index: 1, embedding: [-0.06348089128732681, 0.06128702126443386, 0.05228365734219551] },
      ],
      model: 'text-embedding-v3',
      usage: { prompt_tokens: 14, total_tokens: 14 },
    });
  });
});

describe('DashScope streams → OpenAI chunks', () => {
  const replay = (name: string, status?: number) => replayStream(adapter, callOf(adapter, { model: 'qwen-plus', stream: true, ch }), testContext('qwen-plus', { stream: true, clientWantsUsage: true }), dashscopeSse(providerFixture('ali', name), status));
  const head = { id: 'chatcmpl-r1', object: 'chat.completion.chunk', created: expect.any(Number), model: 'qwen-plus' };

  it('each frame a delta; "null" is no finish; the last frame finishes with the cumulative usage', async () => {
    const run = await replay('chat.stream');
    expect(run.frames).toEqual([
      { ...head, choices: [{ index: 0, delta: { role: 'assistant', content: '你好' }, finish_reason: null }] , usage: null },
      { ...head, choices: [{ index: 0, delta: { content: '！' }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 } },
      '[DONE]',
    ]);
    expect(run.usage).toMatchObject({ promptTokens: 10, completionTokens: 3 });
    expect(run.text).toBe('你好！');
  });

  it('streams the thinking as reasoning_content deltas', async () => {
    const run = await replay('chat.stream.reasoning');
    const r2 = { ...head, id: 'chatcmpl-r2' };
    expect(run.frames).toEqual([
      { ...r2, choices: [{ index: 0, delta: { role: 'assistant', content: '', reasoning_content: '先想一想' }, finish_reason: null }] , usage: null },
      { ...r2, choices: [{ index: 0, delta: { content: '答案是2' }, finish_reason: null }] , usage: null },
      { ...r2, choices: [{ index: 0, delta: { content: '。' }, finish_reason: 'stop' }], usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29, completion_tokens_details: { reasoning_tokens: 4 } } },
      '[DONE]',
    ]);
    expect(run.usage).toMatchObject({ promptTokens: 20, completionTokens: 9, reasoningTokens: 4 });
  });

  it('an event:error frame ends the stream with the error frame', async () => {
    const run = await replay('chat.stream.error', 400);
    expect(run.error).toMatchObject({ code: 'DataInspectionFailed', message: 'Output data may contain inappropriate content.' });
    expect(run.frames).toEqual([{ error: expect.objectContaining({ code: 'DataInspectionFailed', message: 'Output data may contain inappropriate content.' }) }]);
  });
});

describe('DashScope errors {code, message, request_id}', () => {
  it('keep the status, use the code as type and code, and the request id as param', () => {
    expect(classifiedFixture(adapter, 'ali', 'error.invalid-api-key')).toEqual({ status: 401, type: 'InvalidApiKey', code: 'InvalidApiKey', param: 'fb53c4ec-1c12-4fc4-a580-cdb7c3261fc1', message: 'Invalid API-key provided.', retryable: true, disablesChannel: true });
    expect(classifiedFixture(adapter, 'ali', 'error.throttling')).toMatchObject({ status: 429, code: 'Throttling.RateQuota', retryable: true, disablesChannel: false });
    expect(classifiedFixture(adapter, 'ali', 'error.bad-parameter')).toMatchObject({ status: 400, code: 'InvalidParameter', message: 'Range of input length should be [1, 30720]', retryable: false, disablesChannel: false });
  });

  it('an error object answered with 200 is an error reply, an answer is not', () => {
    const call = callOf(adapter, { model: 'qwen-plus', ch });
    expect(adapter.isErrorReply!(call, fixtureBody('ali', 'error.throttling'))).toBe(true);
    expect(adapter.isErrorReply!(call, fixtureBody('ali', 'chat.response'))).toBe(false);
  });
});
