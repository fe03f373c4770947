import { providerFixture } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { adapterOf, builtRequest, callOf, classifiedFixture, fixtureBody, replayStream } from '../../../test-support/adapter-replay.js';
import { testContext } from '../../../test-support/convert-fixtures.js';
import { sparkError, sparkMerge } from './formats/spark/index.js';

/** iFlytek Spark's documented WebSocket frames (fixtures/) through the adapter, for an OpenAI caller. URL signing: sign.test.ts. */
const adapter = adapterOf('spark');
const ch = { key: '12345678|apiSecretExample|apiKeyExample', baseUrl: 'wss://spark-api.xf-yun.com' };
type Frame = Record<string, unknown>;
const frames = (name: string) => providerFixture('spark', name).events as Frame[];

describe('OpenAI → Spark request frame', () => {
  it('builds the documented frame: app id, the user, the version domain, messages as text', async () => {
    const call = callOf(adapter, { model: 'SparkDesk-v3.5', ch, userId: 42 });
    const req = await builtRequest(adapter, call, { model: 'SparkDesk-v3.5', messages: [{ role: 'system', content: '你现在扮演李白' }, { role: 'user', content: '你是谁' }], temperature: 0.5, max_tokens: 1024 });
    expect(req.url).toMatch(/^wss:\/\/spark-api\.xf-yun\.com\/v3\.5\/chat\?authorization=[^&]+&date=[^&]+&host=spark-api\.xf-yun\.com$/);
    expect(req.body).toEqual(fixtureBody('spark', 'chat.request'));
  });

  it('an older domain gets the system message as a user turn the assistant acknowledges', async () => {
    const call = callOf(adapter, { model: 'SparkDesk-v2.1', ch, userId: 42 });
    const req = await builtRequest(adapter, call, { model: 'SparkDesk-v2.1', messages: [{ role: 'system', content: '你现在扮演李白' }, { role: 'user', content: '你是谁' }] });
    expect(req.body).toEqual({ header: { app_id: '12345678', uid: 'user-42' }, parameter: { chat: { domain: 'generalv2' } }, payload: { message: { text: [{ role: 'user', content: '你现在扮演李白' }, { role: 'assistant', content: 'Okay' }, { role: 'user', content: '你是谁' }] } } });
  });
});

describe('Spark frames → OpenAI', () => {
  it('streams each frame as a delta; status 2 finishes with payload.usage', async () => {
    const cx = testContext('SparkDesk-v3.5', { stream: true, clientWantsUsage: true });
    // The transport hands the pipeline one frame a line (application/x-ndjson).
    const ndjson = frames('chat.stream').map((f) => `${JSON.stringify(f)}\n`).join('');
    const run = await replayStream(adapter, callOf(adapter, { model: 'SparkDesk-v3.5', stream: true, ch }), cx, ndjson);
    const head = { id: 'chatcmpl-cht000cb087@dx18793cd421fb894542', object: 'chat.completion.chunk', created: expect.any(Number), model: 'SparkDesk-v3.5' };
    expect(run.frames).toEqual([
      { ...head, choices: [{ index: 0, delta: { role: 'assistant', content: '我是' }, finish_reason: null }] , usage: null },
      { ...head, choices: [{ index: 0, delta: { content: '李白' }, finish_reason: null }] , usage: null },
      { ...head, choices: [{ index: 0, delta: { content: '。' }, finish_reason: 'stop' }], usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 } },
      '[DONE]',
    ]);
    expect(run.usage).toMatchObject({ promptTokens: 12, completionTokens: 5 });
    expect(run.text).toBe('我是李白。');
  });

  it('answers a non-stream caller from the last frame: its text, its usage, the sid as the id', () => {
    const reply = adapter.convertResponse(callOf(adapter, { model: 'SparkDesk-v3.5', ch }), fixtureBody('spark', 'chat.response'), testContext('SparkDesk-v3.5'))!;
    expect(reply.body).toEqual({
      id: 'chatcmpl-cht000704fa@dx194e0ef3d8cb8f2542',
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'SparkDesk-v3.5',
      choices: [{ index: 0, message: { role: 'assistant', content: '你好！我是讯飞星火认知大模型。', refusal: null }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 2, completion_tokens: 12, total_tokens: 14 },
    });
    expect(reply.usage).toMatchObject({ promptTokens: 2, completionTokens: 12 });
  });

  it('answers a non-stream caller from the frames merged (text joined, last usage)', () => {
    const merged = sparkMerge(frames('chat.stream'));
    const reply = adapter.convertResponse(callOf(adapter, { model: 'SparkDesk-v3.5', ch }), merged, testContext('SparkDesk-v3.5'))!;
    expect(reply.body).toEqual({
      id: 'chatcmpl-cht000cb087@dx18793cd421fb894542',
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'SparkDesk-v3.5',
      choices: [{ index: 0, message: { role: 'assistant', content: '我是李白。', refusal: null }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
    });
  });

  it('an error frame in a stream ends it with the error', async () => {
    const ndjson = `${JSON.stringify(frames('chat.stream')[0])}\n${JSON.stringify(fixtureBody('spark', 'error.content-blocked'))}\n`;
    const run = await replayStream(adapter, callOf(adapter, { model: 'SparkDesk-v3.5', stream: true, ch }), testContext('SparkDesk-v3.5', { stream: true }), ndjson);
    expect(run.error).toMatchObject({ code: '10013', message: 'The input content is sensitive' });
    expect(run.frames.at(-1)).toEqual({ error: expect.objectContaining({ code: '10013', message: 'The input content is sensitive' }) });
  });
});

describe('Spark error codes (header.code)', () => {
  /** The transport answers an error frame before any text with the code's status and the frame as the body (transport.ts). */
  const classified = (name: string) => {
    const frame = fixtureBody('spark', name);
    const status = sparkError(frame)!.status;
    return adapter.classifyError(status, status, JSON.stringify(frame));
  };

  it('map to the caller status; the sid is the param', () => {
    expect(classified('error.content-blocked')).toEqual({ status: 400, type: 'xunfei_error', code: '10013', param: 'cht000b41d5@dx18b9ee1a4e9b8f2542', message: 'The input content is sensitive', retryable: false, disablesChannel: false });
    expect(classified('error.too-long')).toMatchObject({ status: 400, code: '10907', retryable: false });
    expect(classified('error.bad-parameter')).toMatchObject({ status: 400, code: '10163' });
    expect(classified('error.daily-limit')).toMatchObject({ status: 429, code: '11201', retryable: true, disablesChannel: false });
  });

  it('11200 (no authorisation for the app) switches the channel off', () => {
    expect(classified('error.unauthorized')).toMatchObject({ status: 403, code: '11200', disablesChannel: true });
  });

  it('a refused handshake (HTTP 401 {message}) keeps its status and words', () => {
    expect(classifiedFixture(adapter, 'spark', 'error.handshake')).toMatchObject({ status: 401, message: 'HMAC signature does not match', disablesChannel: true });
  });
});
