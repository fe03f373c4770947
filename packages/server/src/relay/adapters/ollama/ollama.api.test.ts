import { ollamaEmbedding, ollamaEmbedTokens, startFakeOllama, type FakeOllama } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../../../test-support/expected-charge.js';
import { addCaller, addChannel, balances, consumeLogs, spentBy, startRelayHarness, type RelayHarness, type TestCaller } from '../../../test-support/relay-fixtures.js';

/** Ollama (4): native `/api/embed` for OpenAI embeddings callers, `/api/tags` for "fetch models"; chat on its OpenAI-compatible surface. */
let h: RelayHarness;
let ollama: FakeOllama;
const EMBED = 'nomic-embed-text';
const CHAT = 'llama3.2';

beforeAll(async () => {
  h = await startRelayHarness();
  ollama = await startFakeOllama();
  await h.server.ctx.options.set('ModelRatio', JSON.stringify({ [EMBED]: 0.5, [CHAT]: 1, 'missing-model': 1 }));
  await addChannel(h.root, { type: 4, key: 'ollama-local', base_url: ollama.url, models: `${EMBED},${CHAT},missing-model` });
});
afterAll(async () => {
  await ollama.close();
  await h.close();
});

const spent = (c: TestCaller, fn: () => Promise<unknown>) => spentBy(h, c, fn);
const last = () => ollama.requests.at(-1)!;

describe('Ollama channel', () => {
  it('embeddings: OpenAI callers reach /api/embed; vectors back in the OpenAI shape (SDK base64 decoded); Ollama`s prompt_eval_count charged', async () => {
    const c = await addCaller(h);
    const input = ['alpha beta gamma', 'delta'];
    let res: Awaited<ReturnType<typeof c.client.embeddings.create>> | undefined;
    const cost = await spent(c, async () => {
      res = await c.client.embeddings.create({ model: EMBED, input });
    });
    expect(last().path).toBe('/api/embed');
    expect(last().body).toEqual({ model: EMBED, input });
    // Ollama itself has no auth; a channel key is still sent as Bearer (a proxy in front may check it).
    expect(last().headers.authorization).toBe('Bearer ollama-local');
    const tokens = ollamaEmbedTokens(input);
    expect(res!.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
    expect(res!.data.map((d) => d.index)).toEqual([0, 1]);
    // The SDK asked for base64 and decoded it: the fake's float32 values come back exactly.
    expect(res!.data[1]!.embedding).toEqual(ollamaEmbedding('delta', 8));
    expect(cost).toBe(expectedCharge({ modelRatio: 0.5 }, { prompt: tokens }));
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ model_name: EMBED, prompt_tokens: tokens, quota: cost });
  });

  it('embeddings with float encoding and dimensions pass them on', async () => {
    const c = await addCaller(h);
    const res = await c.client.embeddings.create({ model: EMBED, input: 'one two', encoding_format: 'float', dimensions: 8 });
    expect(last().body).toEqual({ model: EMBED, input: ['one two'], dimensions: 8 });
    expect(res.data[0]!.embedding).toEqual(ollamaEmbedding('one two', 8));
  });

  it('a model Ollama has not pulled: its message, nothing charged', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const err = (await c.client.embeddings.create({ model: 'missing-model', input: 'x' }, { maxRetries: 0 }).catch((e: unknown) => e)) as { status: number; message: string };
    expect(last().rejected).toEqual({ status: 404, error: 'model "missing-model" not found, try pulling it first' });
    expect(err.status).toBe(404);
    expect(err.message).toContain('not found, try pulling it first');
    expect(await balances(h, c)).toEqual(before);
  });

  it('chat stays on the OpenAI-compatible surface', async () => {
    const c = await addCaller(h);
    const res = await c.client.chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] });
    expect(last().path).toBe('/v1/chat/completions');
    expect(res.choices[0]!.message.content).toBe('Hello from the fake OpenAI');
  });

  it('"fetch models" lists /api/tags; the channel test button works', async () => {
    const id = await addChannel(h.root, { type: 4, key: 'ollama-local', base_url: ollama.url, models: CHAT, test_model: CHAT });
    const listed = await h.root.get(`/api/channel/fetch_models/${id}`);
    expect(listed.body).toMatchObject({ success: true, data: ['llama3.2:latest', 'nomic-embed-text:latest'] });
    expect(last()).toMatchObject({ method: 'GET', path: '/api/tags' });
    const r = await h.root.get(`/api/channel/test/${id}`);
    expect(r.body).toMatchObject({ success: true });
    expect(last().path).toBe('/v1/chat/completions');
  });
});
