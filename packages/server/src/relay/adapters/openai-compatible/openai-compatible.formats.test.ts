import { providerFixture } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { adapterOf, builtRequest, callOf, classifiedFixture, fixtureBody, replayStream, sseOf } from '../../../test-support/adapter-replay.js';
import { testContext } from '../../../test-support/convert-fixtures.js';

/** The OpenAI-wire vendors whose documented bodies differ from OpenAI's (fixtures/<vendor>.*), through their adapters. */
type Msg = Record<string, unknown>;
const S = 'openai-compatible';

describe('DeepSeek', () => {
  const adapter = adapterOf('deepseek');
  it('posts to {base}/chat/completions (no /v1) and keeps include_usage', async () => {
    const body = fixtureBody(S, 'chat.request');
    const req = await builtRequest(adapter, callOf(adapter, { model: 'deepseek-reasoner', stream: true, ch: { key: 'ds' } }), body);
    expect(req.url).toBe('https://api.deepseek.com/chat/completions');
    expect(req.body).toEqual(body);
  });

  it('reads cache hits and reasoning tokens, in both the current and the legacy usage', () => {
    const call = callOf(adapter, { model: 'deepseek-reasoner' });
    expect(adapter.convertResponse(call, fixtureBody(S, 'deepseek.usage.cache'), testContext('deepseek-reasoner'))!.usage).toMatchObject({ promptTokens: 20, completionTokens: 60, cachedTokens: 16, reasoningTokens: 52 });
    expect(adapter.convertResponse(call, fixtureBody(S, 'deepseek.usage.cache-legacy'), testContext('deepseek-chat'))!.usage).toMatchObject({ promptTokens: 12, completionTokens: 2, cachedTokens: 8 });
  });

  it('folds reasoning into <think> content when the channel asks (thinking_to_content)', async () => {
    const call = callOf(adapter, { model: 'deepseek-reasoner', stream: true, ch: { setting: { thinking_to_content: true } } });
    const run = await replayStream(adapter, call, testContext('deepseek-reasoner', { stream: true }), sseOf(providerFixture(S, 'deepseek.chat.stream.reasoning'), { done: true }));
    const text = run.frames.filter((f): f is Msg => typeof f === 'object' && f !== null).map((f) => String(((f.choices as Msg[])[0]?.delta as Msg)?.content ?? '')).join('');
    expect(text).toBe('<think>\nCompare tenths.\n</think>\n9.8 is greater.');
    expect(run.usage).toMatchObject({ promptTokens: 20, completionTokens: 60, cachedTokens: 16, reasoningTokens: 52 });
    const reply = adapter.convertResponse({ ...call, stream: false }, fixtureBody(S, 'deepseek.usage.cache'), testContext('deepseek-reasoner'))!;
    expect(((reply.body!.choices as Msg[])[0]!.message as Msg).content).toBe('<think>\nCompare the tenths: 8 > 1, so 9.8 is greater.\n</think>\n9.8 is greater than 9.11.');
  });

  it('classifies its errors: 401 dead key, 402 no balance', () => {
    expect(classifiedFixture(adapter, S, 'deepseek.error.auth')).toMatchObject({ status: 401, type: 'authentication_error', disablesChannel: true });
    expect(classifiedFixture(adapter, S, 'deepseek.error.insufficient-balance')).toMatchObject({ status: 402, message: 'Insufficient Balance' });
  });
});

describe('MiniMax', () => {
  const adapter = adapterOf('minimax');
  it('posts to /v1/text/chatcompletion_v2 without stream_options', async () => {
    const req = await builtRequest(adapter, callOf(adapter, { model: 'abab6.5s-chat', stream: true }), fixtureBody(S, 'chat.request'));
    expect(req.url).toBe('https://api.minimax.chat/v1/text/chatcompletion_v2');
    expect(req.body.stream_options).toBeUndefined();
  });

  it('reads the answer and its usage; base_resp 0 is no error', () => {
    const call = callOf(adapter, { model: 'abab6.5s-chat' });
    expect(adapter.isErrorReply(call, fixtureBody(S, 'minimax.chat.response'))).toBe(false);
    expect(adapter.convertResponse(call, fixtureBody(S, 'minimax.chat.response'), testContext('abab6.5s-chat'))!.usage).toMatchObject({ promptTokens: 9, completionTokens: 5 });
  });

  it('bills the closing frame of a stream', async () => {
    const run = await replayStream(adapter, callOf(adapter, { model: 'abab6.5s-chat', stream: true }), testContext('abab6.5s-chat', { stream: true }), sseOf(providerFixture(S, 'minimax.chat.stream')));
    expect(run.error).toBeUndefined();
    expect(run.usage).toMatchObject({ promptTokens: 9, completionTokens: 5 });
  });

  it('treats a 200 with base_resp ≠ 0 as the error its code names', () => {
    const call = callOf(adapter, { model: 'abab6.5s-chat' });
    const failed = fixtureBody(S, 'minimax.error.base-resp');
    expect(adapter.isErrorReply(call, failed)).toBe(true);
    expect(classifiedFixture(adapter, S, 'minimax.error.base-resp')).toMatchObject({ status: 401, code: '1004', type: 'authentication_error', disablesChannel: true });
    expect(classifiedFixture(adapter, S, 'minimax.error.insufficient-balance')).toMatchObject({ status: 402, code: '1008', type: 'insufficient_quota', message: 'insufficient balance' });
  });
});

describe('Moonshot', () => {
  it('lifts the usage out of the finishing choice to the top level, where it is billed', async () => {
    const adapter = adapterOf('moonshot');
    const run = await replayStream(adapter, callOf(adapter, { model: 'moonshot-v1-8k', stream: true }), testContext('moonshot-v1-8k', { stream: true, clientWantsUsage: true }), sseOf(providerFixture(S, 'moonshot.chat.stream.choice-usage'), { done: true }));
    expect(run.usage).toMatchObject({ promptTokens: 19, completionTokens: 13 });
    const last = run.frames.at(-2) as Msg;
    expect(last.usage).toEqual({ prompt_tokens: 19, completion_tokens: 13, total_tokens: 32 });
    expect(last.choices).toEqual([{ index: 0, delta: {}, finish_reason: 'stop' }]);
    expect(classifiedFixture(adapter, S, 'moonshot.error.auth')).toMatchObject({ status: 401, type: 'invalid_authentication_error', disablesChannel: true });
  });
});

describe('Mistral', () => {
  const adapter = adapterOf('mistral');
  it('removes stream_options (Mistral refuses it) and bills the usage it sends unasked', async () => {
    const req = await builtRequest(adapter, callOf(adapter, { model: 'mistral-small-latest', stream: true }), fixtureBody(S, 'chat.request'));
    expect(req.url).toBe('https://api.mistral.ai/v1/chat/completions');
    expect(req.body.stream_options).toBeUndefined();
    const run = await replayStream(adapter, callOf(adapter, { model: 'mistral-small-latest', stream: true }), testContext('mistral-small-latest', { stream: true }), sseOf(providerFixture(S, 'mistral.chat.stream'), { done: true }));
    expect(run.usage).toMatchObject({ promptTokens: 10, completionTokens: 2 });
  });

  // Known gap: Mistral's 422 puts its validation detail in an object `message`, which the shared
  // OpenAI error reading (openai-base.ts) does not take apart, so only the status reaches the caller.
  it('reads its 422 validation error as a 422 that switches nothing off', () => {
    // FastAPI's validation detail names the field to fix (it was dropped for a generic message before).
    expect(classifiedFixture(adapter, S, 'mistral.error.unprocessable')).toMatchObject({ status: 422, type: 'invalid_request_message_error', message: 'body.stream_options: Extra inputs are not permitted', disablesChannel: false });
  });
});

describe('Jina', () => {
  const adapter = adapterOf('jina');
  it('passes the rerank request and reads its results; errors are {"detail"}', async () => {
    const body = fixtureBody(S, 'jina.rerank.request');
    const call = callOf(adapter, { mode: 'rerank', inbound: 'rerank', model: 'jina-reranker-v2-base-multilingual', ch: { key: 'jina_x' } });
    const req = await builtRequest(adapter, call, body);
    expect(req.url).toBe('https://api.jina.ai/v1/rerank');
    expect(req.body).toEqual(body);
    const reply = adapter.convertResponse(call, fixtureBody(S, 'jina.rerank.response'), testContext(call.model, { callerBody: body }))!;
    expect((reply.body as Msg).results).toEqual(fixtureBody(S, 'jina.rerank.response').results);
    expect(classifiedFixture(adapter, S, 'jina.error.detail')).toMatchObject({ status: 401, message: 'Invalid API key. Please get your free API key at https://jina.ai/?sui=apikey', disablesChannel: true });
  });
});
