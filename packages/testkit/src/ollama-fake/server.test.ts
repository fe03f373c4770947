import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shapeOf } from '../fixture-shape.js';
import { providerFixture } from '../provider-fixtures.js';
import { FAKE_OLLAMA_MODELS, ollamaEmbedding, ollamaEmbedTokens, startFakeOllama, type FakeOllama } from './index.js';

type Obj = Record<string, unknown>;
const fixture = (name: string) => providerFixture('ollama', name);

describe('ollama fake serves the documented shapes', () => {
  let fake: FakeOllama;
  const post = (path: string, body: unknown) => fetch(`${fake.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    fake = await startFakeOllama();
  });
  afterAll(() => fake.close());

  it('/api/tags lists the pulled models in tags.response’s shape', async () => {
    const json = (await (await fetch(`${fake.url}/api/tags`)).json()) as { models: Obj[] };
    expect(shapeOf(json)).toEqual(shapeOf(fixture('tags.response').body));
    expect(json.models.map((m) => m.name)).toEqual(FAKE_OLLAMA_MODELS);
  });

  it('/api/embed answers in embed.response’s shape, with the fake’s vectors and count', async () => {
    const input = ['Why is the sky blue?', 'Why is the grass green?'];
    const json = (await (await post('/api/embed', { model: 'nomic-embed-text', input })).json()) as Obj;
    expect(shapeOf(json)).toEqual(shapeOf(fixture('embed.response').body));
    expect(json.embeddings).toEqual(input.map((t) => ollamaEmbedding(t, 8)));
    expect(json.prompt_eval_count).toBe(ollamaEmbedTokens(input));
  });

  it('a model not pulled is the documented error on each surface', async () => {
    const native = await post('/api/embed', { model: 'llama9', input: 'x' });
    expect(native.status).toBe(fixture('error.model-not-found').status);
    expect(await native.json()).toEqual(fixture('error.model-not-found').body);
    const openai = await post('/v1/chat/completions', { model: 'llama9', messages: [{ role: 'user', content: 'hi' }] });
    expect(openai.status).toBe(fixture('error.openai-surface').status);
    expect(await openai.json()).toEqual(fixture('error.openai-surface').body);
  });
});
