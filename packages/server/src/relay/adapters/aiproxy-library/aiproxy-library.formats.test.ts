import { providerFixture } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { adapterOf, builtRequest, callOf, fixtureBody, replayStream, sseOf } from '../../../test-support/adapter-replay.js';
import { testContext } from '../../../test-support/convert-fixtures.js';

/** AIProxy's library ask bodies (fixtures/) through the adapter, for an OpenAI chat caller. */
const adapter = adapterOf('aiproxy-library');
const ch = { key: 'ap-key', baseUrl: 'https://api.aiproxy.io', other: 'lib-8f2a6c' };

describe('AIProxy library', () => {
  it('asks the last user message of the library named in the channel', async () => {
    const req = await builtRequest(adapter, callOf(adapter, { model: 'gpt-3.5-turbo', ch }), { model: 'gpt-3.5-turbo', messages: [{ role: 'system', content: 'Be kind.' }, { role: 'user', content: 'How do I reset my password?' }] });
    expect(req.url).toBe('https://api.aiproxy.io/api/library/ask');
    expect(req.headers).toEqual({ 'api-key': 'ap-key', authorization: 'Bearer ap-key' });
    expect(req.body).toEqual(fixtureBody('aiproxy-library', 'ask.request'));
  });

  it('answers with the references appended; no usage until counted', () => {
    const reply = adapter.convertResponse(callOf(adapter, { model: 'gpt-3.5-turbo', ch }), fixtureBody('aiproxy-library', 'ask.response'), testContext('gpt-3.5-turbo'))!;
    expect(reply.usage).toBeUndefined();
    expect(reply.text()).toBe('Open Settings, then choose Reset password.\n\nReferences:\n1. [Account help](https://docs.example.com/account)\n2. [Security FAQ](https://docs.example.com/security)');
  });

  it('streams the content deltas, the references on the finishing chunk', async () => {
    const run = await replayStream(adapter, callOf(adapter, { model: 'gpt-3.5-turbo', stream: true, ch }), testContext('gpt-3.5-turbo', { stream: true }), sseOf(providerFixture('aiproxy-library', 'ask.stream'), { done: true }));
    const deltas = run.frames.filter((f): f is { choices: Array<{ delta: unknown; finish_reason: unknown }> } => typeof f === 'object' && f !== null && 'choices' in f).map((f) => [f.choices[0]!.delta, f.choices[0]!.finish_reason]);
    expect(deltas).toEqual([
      [{ content: 'Open Settings,', role: 'assistant' }, null],
      [{ content: ' then choose Reset password.' }, null],
      [{ content: '\n\nReferences:\n1. [Account help](https://docs.example.com/account)' }, 'stop'],
    ]);
    expect(run.frames.at(-1)).toBe('[DONE]');
  });

  it('treats success:false (even HTTP 200) as an error with AIProxy\'s message', () => {
    const call = callOf(adapter, { model: 'gpt-3.5-turbo', ch });
    expect(adapter.isErrorReply(call, fixtureBody('aiproxy-library', 'error.library-missing'))).toBe(true);
    expect(adapter.classifyError(500, 200, JSON.stringify(fixtureBody('aiproxy-library', 'error.library-missing')))).toMatchObject({ status: 500, type: 'aiproxy_error', code: '10004', message: 'library not found' });
  });
});
