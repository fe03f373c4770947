import { providerFixture } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { adapterOf, builtRequest, callOf, classifiedFixture, fixtureBody, replayStream, sseOf } from '../../../test-support/adapter-replay.js';
import { testContext } from '../../../test-support/convert-fixtures.js';

/** A Custom channel (fixtures/: OpenAI's documented bodies) through the adapter: its URL, usage asked for streams. */
const adapter = adapterOf('custom');

describe('Custom', () => {
  it('posts to the base URL as written with {model} filled in, and asks a stream for its usage', async () => {
    const body = fixtureBody('custom', 'chat.request');
    const req = await builtRequest(adapter, callOf(adapter, { model: 'my-model', stream: true, ch: { key: 'k', baseUrl: 'https://llm.example.com/v1/{model}/chat' } }), body);
    expect(req.url).toBe('https://llm.example.com/v1/my-model/chat');
    expect(req.headers).toEqual({ authorization: 'Bearer k' });
    expect(req.body).toEqual({ ...body, stream_options: { include_usage: true } });
  });

  it('leaves stream_options out when the channel says stream_usage false', async () => {
    const body = fixtureBody('custom', 'chat.request');
    const req = await builtRequest(adapter, callOf(adapter, { model: 'my-model', stream: true, ch: { baseUrl: 'https://llm.example.com/x', setting: { stream_usage: false } } }), body);
    expect(req.body).toEqual(body);
  });

  it('bills the usage chunk it asked for without showing it to a caller who did not', async () => {
    const call = callOf(adapter, { model: 'my-model', stream: true, ch: { baseUrl: 'https://llm.example.com/x' } });
    const events = providerFixture('custom', 'chat.stream').events ?? [];
    const run = await replayStream(adapter, call, testContext('my-model', { stream: true }), sseOf(providerFixture('custom', 'chat.stream'), { done: true }));
    expect(run.usage).toMatchObject({ promptTokens: 9, completionTokens: 1 });
    expect(run.frames).toEqual([...events.slice(0, 3), '[DONE]']);
  });

  it('reads OpenAI errors; an invalid key switches the channel off', () => {
    expect(classifiedFixture(adapter, 'custom', 'error.invalid-key')).toMatchObject({ status: 401, type: 'invalid_request_error', code: 'invalid_api_key', disablesChannel: true });
  });
});
