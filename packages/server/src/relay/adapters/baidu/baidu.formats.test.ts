import { providerFixture } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { adapterOf, callOf, fixtureBody, replayStream, sseOf } from '../../../test-support/adapter-replay.js';
import { testContext } from '../../../test-support/convert-fixtures.js';
import type { UpstreamCall } from '../types.js';

/** Baidu ERNIE's documented bodies (fixtures/) through the adapter, for an OpenAI caller; no server, no token fetch. */
const adapter = adapterOf('baidu');
const ch = { key: 'ak|sk', baseUrl: 'https://aip.baidubce.com' };

/** The request before signing (signing fetches an access token; token.test.ts covers it). */
async function unsigned(call: UpstreamCall, body: Record<string, unknown>) {
  const cx = testContext(call.model, { stream: call.stream });
  const req = await adapter.buildRequest(call, { body, raw: Buffer.from(JSON.stringify(body)), contentType: 'application/json', callerModel: call.model, cx });
  return { url: req.url, body: JSON.parse(typeof req.body === 'string' ? req.body : req.body.toString('utf8')) as Record<string, unknown> };
}

describe('OpenAI → ERNIE requests', () => {
  it('builds the documented chat body: system apart, turns alternating, knobs renamed', async () => {
    const call = callOf(adapter, { model: 'ERNIE-3.5-8K', ch });
    const req = await unsigned(call, {
      model: 'ERNIE-3.5-8K',
      messages: [
        { role: 'system', content: '你是一个导游' },
        { role: 'user', content: '你好' },
        { role: 'assistant', content: '你好！有什么可以帮你的？' },
        { role: 'user', content: [{ type: 'text', text: '介绍一下北京' }] },
      ],
      temperature: 0.8,
      top_p: 0.8,
      frequency_penalty: 1,
      max_tokens: 1024,
      stop: '。。',
      user: 'user-42',
    });
    expect(req.url).toBe('https://aip.baidubce.com/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions');
    expect(req.body).toEqual(fixtureBody('baidu', 'chat.request'));
  });

  it('builds the documented embeddings body at the model endpoint', async () => {
    const call = callOf(adapter, { mode: 'embeddings', inbound: 'openai-embeddings', model: 'Embedding-V1', ch });
    const req = await unsigned(call, { model: 'Embedding-V1', input: ['推荐一些美食', '给我讲个故事'] });
    expect(req.url).toBe('https://aip.baidubce.com/rpc/2.0/ai_custom/v1/wenxinworkshop/embeddings/embedding-v1');
    expect(req.body).toEqual(fixtureBody('baidu', 'embeddings.request'));
  });
});

describe('ERNIE answers → OpenAI', () => {
  it('reads the chat answer: result as the message, normal as stop, usage copied', () => {
    const reply = adapter.convertResponse(callOf(adapter, { model: 'ERNIE-3.5-8K', ch }), fixtureBody('baidu', 'chat.response'), testContext('ERNIE-3.5-8K'))!;
    expect(reply.body).toEqual({
      id: 'as-bcmt5ct4iy',
      object: 'chat.completion',
      created: 1680167072,
      model: 'ERNIE-3.5-8K',
      choices: [{ index: 0, message: { role: 'assistant', content: '北京是中国的首都。', refusal: null }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 14, completion_tokens: 8, total_tokens: 22 },
    });
    expect(reply.usage).toMatchObject({ promptTokens: 14, completionTokens: 8 });
  });

  it('streams each frame as a delta; the is_end frame finishes with the usage', async () => {
    const cx = testContext('ERNIE-3.5-8K', { stream: true, clientWantsUsage: true });
    const run = await replayStream(adapter, callOf(adapter, { model: 'ERNIE-3.5-8K', stream: true, ch }), cx, sseOf(providerFixture('baidu', 'chat.stream')));
    const base = { id: 'as-x1', object: 'chat.completion.chunk', model: 'ERNIE-3.5-8K' };
    expect(run.frames).toEqual([
      { ...base, created: 1700000000, choices: [{ index: 0, delta: { role: 'assistant', content: '你好' }, finish_reason: null }], usage: null },
      { ...base, created: 1700000001, choices: [{ index: 0, delta: { content: '！' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } },
      '[DONE]',
    ]);
    expect(run.usage).toMatchObject({ promptTokens: 3, completionTokens: 4 });
    expect(run.usageFinal).toBe(true);
    expect(run.text).toBe('你好！');
  });

  it('ends a stream whose error comes as a bare JSON line (no data: prefix) with the error frame', async () => {
    const fx = providerFixture('baidu', 'chat.stream.error');
    const run = await replayStream(adapter, callOf(adapter, { model: 'ERNIE-3.5-8K', stream: true, ch }), testContext('ERNIE-3.5-8K', { stream: true }), `${JSON.stringify(fx.events![0])}\n`);
    expect(run.error).toMatchObject({ code: '336100', message: 'try again later' });
    expect(run.frames).toEqual([{ error: expect.objectContaining({ code: '336100', message: 'try again later' }) }]);
  });

  it('reads the embeddings answer as OpenAI list', () => {
    const reply = adapter.convertResponse(callOf(adapter, { mode: 'embeddings', inbound: 'openai-embeddings', model: 'Embedding-V1', ch }), fixtureBody('baidu', 'embeddings.response'), testContext('Embedding-V1'))!;
    expect(reply.body).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [0.018314671, 0.009424409, -0.036294863] },
        { object: 'embedding', index: 1, embedding: [0.122507788, 0.079346716, 0.003301615] },
      ],
      model: 'Embedding-V1',
      usage: { prompt_tokens: 12, total_tokens: 12 },
    });
  });
});

describe('ERNIE errors (HTTP 200 {error_code, error_msg})', () => {
  /** A 200 answer that isErrorReply flags is classified as the upstream client does it (upstream-client.ts errorReply: 500). */
  const errorReply = (name: string) => adapter.classifyError(500, 500, JSON.stringify(fixtureBody('baidu', name)));

  it('are recognised in a 200 answer', () => {
    const call = callOf(adapter, { model: 'ERNIE-3.5-8K', ch });
    expect(adapter.isErrorReply!(call, fixtureBody('baidu', 'error.rate-limit'))).toBe(true);
    expect(adapter.isErrorReply!(call, fixtureBody('baidu', 'chat.response'))).toBe(false);
  });

  it('110 / 111 mark the token stale (one more attempt with a new token)', () => {
    expect(errorReply('error.token-invalid')).toEqual({ status: 500, type: 'baidu_error', code: '110', param: null, message: 'Access token invalid or no longer valid', retryable: true, disablesChannel: false, staleCredentials: true });
    expect(errorReply('error.token-expired')).toMatchObject({ code: '111', message: 'Access token expired', staleCredentials: true });
  });

  it('other codes keep their code and message, without a token refresh', () => {
    expect(errorReply('error.rate-limit')).toEqual({ status: 500, type: 'baidu_error', code: '18', param: null, message: 'Open api qps request limit reached', retryable: true, disablesChannel: false });
    expect(errorReply('error.bad-messages')).toEqual({ status: 500, type: 'baidu_error', code: '336003', param: null, message: 'the length of messages must be an odd number', retryable: true, disablesChannel: false });
    expect(errorReply('error.unknown-endpoint')).toMatchObject({ code: '3', message: 'Unsupported openapi method' });
  });
});
