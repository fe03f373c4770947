import { providerFixture } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { adapterOf, builtRequest, callOf, fixtureBody, replayStream, sseOf } from '../../../test-support/adapter-replay.js';
import { testContext } from '../../../test-support/convert-fixtures.js';

/** Tencent Hunyuan's documented ChatCompletions bodies (fixtures/) through the adapter, for an OpenAI caller. Signing: tc3.test.ts. */
const adapter = adapterOf('tencent');
const ch = { key: '1300000000|AKIDexample|secretExample', baseUrl: 'https://hunyuan.tencentcloudapi.com' };

describe('OpenAI → Hunyuan request', () => {
  it('builds the documented body: PascalCase fields, the system message first, signed TC3 headers', async () => {
    const call = callOf(adapter, { model: 'hunyuan-lite', ch });
    const req = await builtRequest(adapter, call, { model: 'hunyuan-lite', messages: [{ role: 'system', content: '你是一个助手' }, { role: 'user', content: '你好' }], top_p: 0.8, temperature: 0.7 });
    expect(req.url).toBe('https://hunyuan.tencentcloudapi.com/');
    expect(req.body).toEqual(fixtureBody('tencent', 'chat.request'));
    expect(req.headers).toMatchObject({ 'content-type': 'application/json', 'x-tc-action': 'ChatCompletions', 'x-tc-version': '2023-09-01', 'x-tc-timestamp': expect.stringMatching(/^\d+$/) });
    expect(req.headers.authorization).toMatch(/^TC3-HMAC-SHA256 Credential=AKIDexample\/\d{4}-\d{2}-\d{2}\/hunyuan\/tc3_request, SignedHeaders=content-type;host;x-tc-action, Signature=[0-9a-f]{64}$/);
  });
});

describe('Hunyuan answers → OpenAI', () => {
  it('reads Response: Id, Created, the message and the usage', () => {
    const reply = adapter.convertResponse(callOf(adapter, { model: 'hunyuan-lite', ch }), fixtureBody('tencent', 'chat.response'), testContext('hunyuan-lite'))!;
    expect(reply.body).toEqual({
      id: 'e4b3e3c2-5a1b-4c6d-9e8f-0a1b2c3d4e5f',
      object: 'chat.completion',
      created: 1700549760,
      model: 'hunyuan-lite',
      choices: [{ index: 0, message: { role: 'assistant', content: '你好！有什么我可以帮你的吗？', refusal: null }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 4, completion_tokens: 9, total_tokens: 13 },
    });
    expect(reply.usage).toMatchObject({ promptTokens: 4, completionTokens: 9 });
  });

  it('streams each Delta; the stop frame finishes with its (cumulative) Usage; [DONE] is added', async () => {
    const cx = testContext('hunyuan-lite', { stream: true, clientWantsUsage: true });
    const run = await replayStream(adapter, callOf(adapter, { model: 'hunyuan-lite', stream: true, ch }), cx, sseOf(providerFixture('tencent', 'chat.stream')));
    const head = { id: '148b0a0b-a1e4-4e7f-9b2e-7c8d9e0f1a2b', object: 'chat.completion.chunk', created: 1700549760, model: 'hunyuan-lite' };
    expect(run.frames).toEqual([
      { ...head, choices: [{ index: 0, delta: { role: 'assistant', content: '1' }, finish_reason: null }] , usage: null },
      { ...head, choices: [{ index: 0, delta: { content: '+1=2' }, finish_reason: null }] , usage: null },
      { ...head, choices: [{ index: 0, delta: { content: '' }, finish_reason: 'stop' }], usage: { prompt_tokens: 4, completion_tokens: 5, total_tokens: 9 } },
      '[DONE]',
    ]);
    expect(run.usage).toMatchObject({ promptTokens: 4, completionTokens: 5 });
    expect(run.text).toBe('1+1=2');
  });
});

describe('Hunyuan errors (HTTP 200 Response.Error)', () => {
  /** A 200 answer that isErrorReply flags is classified as the upstream client does it (upstream-client.ts errorReply: the code's status). */
  const errorReply = (name: string) => adapter.classifyError(undefined, 500, JSON.stringify(fixtureBody('tencent', name)));

  it('are recognised in a 200 answer', () => {
    const call = callOf(adapter, { model: 'hunyuan-lite', ch });
    expect(adapter.isErrorReply!(call, fixtureBody('tencent', 'error.invalid-parameter'))).toBe(true);
    expect(adapter.isErrorReply!(call, fixtureBody('tencent', 'chat.response'))).toBe(false);
  });

  it('keep the string Code and the RequestId; the Code names the status; AuthFailure.* (but an expired signature) and ResourceInsufficient.* switch the channel off', () => {
    expect(errorReply('error.invalid-parameter')).toEqual({ status: 400, type: 'tencent_error', code: 'InvalidParameter', param: '5d9c4a1e-3b2f-4c8d-9e7a-6f1b0c2d3e4a', message: 'Temperature must be 2 or less', retryable: false, disablesChannel: false });
    expect(errorReply('error.rate-limit')).toMatchObject({ status: 429, code: 'LimitExceeded', message: '超过配额限制', retryable: true, disablesChannel: false });
    expect(errorReply('error.signature')).toMatchObject({ status: 401, code: 'AuthFailure.SignatureFailure', disablesChannel: true });
    // The request's own timestamp was too old (our clock): retried elsewhere, the channel kept, not the caller's fault.
    expect(errorReply('error.signature-expired')).toMatchObject({ status: 500, code: 'AuthFailure.SignatureExpire', retryable: true, disablesChannel: false });
    expect(errorReply('error.arrears')).toMatchObject({ status: 403, code: 'ResourceInsufficient.ChargeResourceExhaust', message: '计费资源已耗尽', disablesChannel: true });
  });
});
