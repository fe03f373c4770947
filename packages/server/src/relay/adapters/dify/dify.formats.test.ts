import { providerFixture } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { adapterOf, builtRequest, callOf, classifiedFixture, fixtureBody, replayStream, sseOf } from '../../../test-support/adapter-replay.js';
import { testContext } from '../../../test-support/convert-fixtures.js';
const adapter = adapterOf('dify');

/** Dify's documented chat-messages bodies (fixtures/) through the adapter, for an OpenAI chat caller. */
type Msg = Record<string, unknown>;
const chunks = (frames: unknown[]) => frames.filter((f): f is Msg => typeof f === 'object' && f !== null && 'choices' in f);

describe('OpenAI chat → Dify chat-messages', () => {
  it('flattens the conversation into one query, per-user, blocking, with the app key as Bearer', async () => {
    const call = callOf(adapter, { model: 'dify', userId: 7, ch: { key: 'app-123', baseUrl: 'https://api.dify.ai' } });
    const req = await builtRequest(adapter, call, { model: 'dify', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'What are the specs of the iPhone 13 Pro Max?' }] });
    expect(req.url).toBe('https://api.dify.ai/v1/chat-messages');
    expect(req.headers).toEqual({ authorization: 'Bearer app-123' });
    // The documented request's shape (fixtures/chat.request), with the flattened conversation and ModelGate's user id.
    const documented = fixtureBody('dify', 'chat.request');
    expect(Object.keys(req.body).sort()).toEqual(Object.keys(documented).filter((k) => k !== 'conversation_id').sort());
    expect(req.body).toEqual({ inputs: {}, query: 'SYSTEM: \nBe brief.\nUSER: \nWhat are the specs of the iPhone 13 Pro Max?\n', response_mode: 'blocking', user: 'modelgate-user-7' });
  });
});

describe('Dify answers → OpenAI chat', () => {
  it('reads the blocking answer and its usage', () => {
    const reply = adapter.convertResponse(callOf(adapter, { model: 'dify' }), fixtureBody('dify', 'chat.response'), testContext('dify'))!;
    expect(reply.body).toMatchObject({ id: 'chatcmpl-9da23599-e713-473b-982c-4328d4f5c78a', object: 'chat.completion', created: 1705407629, model: 'dify', usage: { prompt_tokens: 1033, completion_tokens: 128, total_tokens: 1161 } });
    expect((reply.body!.choices as Msg[])[0]).toMatchObject({ index: 0, message: { role: 'assistant', content: 'iPhone 13 Pro Max specs are listed here:...' }, finish_reason: 'stop' });
    expect(reply.usage).toMatchObject({ promptTokens: 1033, completionTokens: 128 });
  });

  it('streams message answers as deltas, ends at message_end with its usage', async () => {
    const cx = testContext('dify', { stream: true, clientWantsUsage: true });
    const run = await replayStream(adapter, callOf(adapter, { model: 'dify', stream: true }), cx, sseOf(providerFixture('dify', 'chat.stream')));
    expect(chunks(run.frames).map((c) => [(c.choices as Msg[])[0]?.delta, (c.choices as Msg[])[0]?.finish_reason, c.usage])).toEqual([
      [{ role: 'assistant', content: ' I' }, null, null],
      [{ content: "'m" }, null, null],
      [{ content: ' glad' }, null, null],
      [{}, 'stop', null],
      [undefined, undefined, { prompt_tokens: 1033, completion_tokens: 135, total_tokens: 1168 }],
    ]);
    expect(run.usage).toMatchObject({ promptTokens: 1033, completionTokens: 135 });
    expect(run.frames.at(-1)).toBe('[DONE]');
  });

  it('skips agent thoughts and files, takes agent_message and message_replace text', async () => {
    const run = await replayStream(adapter, callOf(adapter, { model: 'dify', stream: true }), testContext('dify', { stream: true }), sseOf(providerFixture('dify', 'chat.stream.agent')));
    expect(chunks(run.frames).map((c) => (c.choices as Msg[])[0]?.delta)).toEqual([{ role: 'assistant', content: 'Here is' }, { content: 'Here is a cat.' }, {}]);
  });

  it('ends a stream on its error event with the error frame', async () => {
    const run = await replayStream(adapter, callOf(adapter, { model: 'dify', stream: true }), testContext('dify', { stream: true }), sseOf(providerFixture('dify', 'chat.stream.error')));
    expect(run.error).toMatchObject({ code: 'provider_quota_exceeded', message: 'Your quota for Dify Hosted Model Provider has been exhausted.' });
    expect(run.frames.at(-1)).toMatchObject({ error: { code: 'provider_quota_exceeded', message: 'Your quota for Dify Hosted Model Provider has been exhausted.' } });
  });
});

describe('Dify errors', () => {
  it('reads {status, code, message}; unauthorized and app_unavailable switch the channel off', () => {
    expect(classifiedFixture(adapter, 'dify', 'error.invalid-param')).toEqual({ status: 400, type: 'upstream_error', code: 'invalid_param', param: null, message: 'abnormal parameter input', retryable: false, disablesChannel: false });
    expect(classifiedFixture(adapter, 'dify', 'error.unauthorized')).toMatchObject({ status: 401, code: 'unauthorized', disablesChannel: true });
    expect(classifiedFixture(adapter, 'dify', 'error.app-unavailable')).toMatchObject({ status: 400, code: 'app_unavailable', disablesChannel: true });
  });
});
