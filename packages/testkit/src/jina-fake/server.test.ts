import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shapeOf } from '../fixture-shape.js';
import { providerFixture } from '../provider-fixtures.js';
import { jinaTokens, startFakeJina, type FakeJina } from './index.js';

type Obj = Record<string, unknown>;
// Jina's fixtures live with the OpenAI-compatible vendors.
const fixture = (name: string) => providerFixture('openai-compatible', `jina.${name}`);

describe('jina fake serves the documented shapes', () => {
  let fake: FakeJina;
  const post = (path: string, body: unknown, key = 'jina-key') => fetch(`${fake.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    fake = await startFakeJina({ apiKeys: ['jina-key'] });
  });
  afterAll(() => fake.close());

  it('an embeddings answer has jina.embeddings.response’s shape, with the fake’s count', async () => {
    const json = (await (await post('/v1/embeddings', { model: 'jina-embeddings-v3', input: ['Organic skincare products'] })).json()) as Obj;
    expect(shapeOf(json)).toEqual(shapeOf(fixture('embeddings.response').body));
    expect(json.usage).toEqual({ total_tokens: 3, prompt_tokens: 3 });
  });

  it('a rerank answer has jina.rerank.response’s shape', async () => {
    const request = fixture('rerank.request').body as { query: string; documents: string[] };
    const json = (await (await post('/v1/rerank', request)).json()) as { results: Obj[]; usage: Obj };
    expect(shapeOf(json)).toEqual(shapeOf(fixture('rerank.response').body));
    expect(json.results).toHaveLength(2);
    expect(json.usage).toEqual({ total_tokens: jinaTokens([request.query, ...request.documents]) });
  });

  it('a bad key is jina.error.detail, exactly', async () => {
    const res = await post('/v1/embeddings', { model: 'jina-embeddings-v3', input: 'x' }, 'wrong');
    expect(res.status).toBe(fixture('error.detail').status);
    expect(await res.json()).toEqual(fixture('error.detail').body);
  });
});
