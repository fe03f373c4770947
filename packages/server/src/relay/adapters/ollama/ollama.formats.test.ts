import { providerFixture } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { adapterOf, builtRequest, callOf, classifiedFixture, fixtureBody, replayStream, sseOf } from '../../../test-support/adapter-replay.js';
import { testContext } from '../../../test-support/convert-fixtures.js';

/** Ollama's documented bodies (fixtures/): chat through its OpenAI surface, embeddings through /api/embed. */
const adapter = adapterOf('ollama');

describe('Ollama', () => {
  it('sends chat to /v1/chat/completions unchanged, keeping stream_options (Ollama honours include_usage)', async () => {
    const body = fixtureBody('ollama', 'chat.request');
    const req = await builtRequest(adapter, callOf(adapter, { model: 'llama3.2', stream: true, ch: { key: '', baseUrl: 'http://localhost:11434' } }), body);
    expect(req.url).toBe('http://localhost:11434/v1/chat/completions');
    expect(req.headers).toEqual({});
    expect(req.body).toEqual(body);
  });

  it('relays the OpenAI stream and bills the usage chunk it sends', async () => {
    const cx = testContext('llama3.2', { stream: true, clientWantsUsage: true });
    const run = await replayStream(adapter, callOf(adapter, { model: 'llama3.2', stream: true }), cx, sseOf(providerFixture('ollama', 'chat.stream'), { done: true }));
    // Relayed as they came, completed with `usage: null` where OpenAI's chunk schema wants it (usage was asked for).
    const events = (providerFixture('ollama', 'chat.stream').events ?? []) as Record<string, unknown>[];
    expect(run.frames).toEqual([...events.map((e) => ('usage' in e ? e : { ...e, usage: null })), '[DONE]']);
    expect(run.usage).toMatchObject({ promptTokens: 30, completionTokens: 5 });
  });

  it('embeds through /api/embed and reads prompt_eval_count as usage', async () => {
    const call = callOf(adapter, { mode: 'embeddings', inbound: 'openai-embeddings', model: 'all-minilm', ch: { baseUrl: 'http://localhost:11434' } });
    const req = await builtRequest(adapter, call, { model: 'all-minilm', input: ['Why is the sky blue?', 'Why is the grass green?'] });
    expect(req.url).toBe('http://localhost:11434/api/embed');
    expect(req.body).toEqual(fixtureBody('ollama', 'embed.request'));
    const reply = adapter.convertResponse(call, fixtureBody('ollama', 'embed.response'), testContext('all-minilm', { callerBody: { input: [] } }))!;
    expect(reply.body).toEqual({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.010071029, -0.0017594862, 0.05007221] }, { object: 'embedding', index: 1, embedding: [-0.0098027075, 0.06042469, 0.025257962] }], model: 'all-minilm', usage: { prompt_tokens: 8, total_tokens: 8 } });
    expect(reply.usage).toMatchObject({ promptTokens: 8 });
  });

  it('lists models from /api/tags', () => {
    expect(adapter.readModelList(fixtureBody('ollama', 'tags.response'))).toEqual({ models: ['llama3.2:latest', 'all-minilm:latest'] });
  });

  it('reads both error shapes: native {"error"} and the OpenAI surface', () => {
    expect(classifiedFixture(adapter, 'ollama', 'error.model-not-found')).toMatchObject({ status: 404, message: 'model "llama9" not found, try pulling it first' });
    expect(classifiedFixture(adapter, 'ollama', 'error.openai-surface')).toMatchObject({ status: 404, type: 'api_error', message: 'model "llama9" not found, try pulling it first' });
  });
});
