import { expectedGeminiUsage, expectedMessagesUsage, makeServiceAccount, startFakeVertex, type FakeVertex } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecordingProxy } from '../../../test-support/recording-proxy.js';
import { expectedCharge } from '../../../test-support/expected-charge.js';
import { addCaller, addChannel, anthropicClient, balances, consumeLogs, startRelayHarness, type RelayHarness } from '../../../test-support/relay-fixtures.js';

/**
 * Vertex AI channels (type 41) through the real pipeline: a service-account key exchanged for an
 * access token at the fake's token endpoint (JWT verified with the account's public key), cached
 * per channel; Gemini models on `publishers/google`, Claude models on `publishers/anthropic`.
 */
let h: RelayHarness;
let vertex: FakeVertex;
let refusedId = 0;
/** The key of the account the fake knows, its token_uri the fake's. */
let knownKey: Record<string, string> = {};
const GEMINI = 'gemini-2.0-flash';
const CLAUDE = 'claude-3-5-sonnet-20241022';
const REFUSED = 'gemini-2.5-flash';
const messages = [{ role: 'user' as const, content: 'Hello there friend' }];
const ROOT = '/v1/projects/fake-project/locations/us-east5/publishers';

beforeAll(async () => {
  h = await startRelayHarness();
  await h.server.ctx.options.set('ModelRatio', JSON.stringify({ [GEMINI]: 2, [CLAUDE]: 1.5, [REFUSED]: 1 }));
  // The account the fake knows, and one whose registered public key is not its own (its JWTs cannot verify).
  // Their token_uri is the fake's, set once it listens.
  const sa = makeServiceAccount({ tokenUri: '' });
  const stranger = makeServiceAccount({ tokenUri: '', name: 'stranger' });
  vertex = await startFakeVertex({ serviceAccounts: [sa.account, { ...stranger.account, publicKey: sa.account.publicKey }] });
  const key = (k: Record<string, string>) => JSON.stringify({ ...k, token_uri: vertex.tokenUri });
  knownKey = { ...sa.key, token_uri: vertex.tokenUri };
  await addChannel(h.root, { type: 41, key: key(sa.key), base_url: vertex.url, other: 'us-east5', models: `${GEMINI},${CLAUDE}` });
  refusedId = await addChannel(h.root, { type: 41, key: key(stranger.key), base_url: vertex.url, other: 'us-east5', models: REFUSED });
});
afterAll(async () => {
  await vertex.close();
  await h.close();
});

const geminiCharge = (prompt: number, completion: number) => expectedCharge({ modelRatio: 2, completionRatio: 4 }, { prompt, completion });
const claudeCharge = (prompt: number, completion: number) => expectedCharge({ modelRatio: 1.5, completionRatio: 5 }, { prompt, completion });
const calls = () => vertex.requests.filter((r) => r.kind !== 'token');
const last = () => calls().at(-1)!;
const lastBody = () => last().body as Record<string, unknown>;

describe('Vertex AI channel', () => {
  it('Gemini model: generateContent with the access token, exact charge; stream over SSE', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const res = await c.client.chat.completions.create({ model: GEMINI, messages, temperature: 0.5 });
    expect(res.choices[0]!.message.content).toBe('Hello from the fake Gemini');
    expect(last().path).toBe(`${ROOT}/google/models/${GEMINI}:generateContent`);
    expect(last().headers.authorization).toMatch(/^Bearer ya29\.c\.fake/);
    expect(lastBody()).toMatchObject({ contents: [{ role: 'user', parts: [{ text: 'Hello there friend' }] }], generationConfig: { temperature: 0.5 } });
    const u = expectedGeminiUsage(lastBody());
    expect(res.usage).toMatchObject({ prompt_tokens: u.promptTokenCount, completion_tokens: u.candidatesTokenCount });
    const mid = await balances(h, c);
    expect(before.quota - mid.quota).toBe(geminiCharge(u.promptTokenCount, u.candidatesTokenCount));
    expect(before.remain - mid.remain).toBe(geminiCharge(u.promptTokenCount, u.candidatesTokenCount));

    const stream = await c.client.chat.completions.create({ model: GEMINI, messages, stream: true, stream_options: { include_usage: true } });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('Hello from the fake Gemini');
    expect(last().path).toBe(`${ROOT}/google/models/${GEMINI}:streamGenerateContent`);
    expect(last().query).toEqual({ alt: 'sse' });
    const logs = await consumeLogs(h, c.userId);
    expect(logs.map((l) => [Number(l.quota), Number(l.is_stream)])).toEqual([
      [geminiCharge(u.promptTokenCount, u.candidatesTokenCount), 0],
      [geminiCharge(u.promptTokenCount, u.candidatesTokenCount), 1],
    ]);
  });

  it('Claude model: rawPredict with anthropic_version and no model, OpenAI and Anthropic callers, stream, exact charge', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const res = await c.client.chat.completions.create({ model: CLAUDE, messages, max_tokens: 64 });
    expect(res.choices[0]!.message.content).toBe('Hello from the fake Claude');
    expect(last().path).toBe(`${ROOT}/anthropic/models/claude-3-5-sonnet-v2@20241022:rawPredict`);
    expect(lastBody()).toEqual({ anthropic_version: 'vertex-2023-10-16', max_tokens: 64, messages });
    const prompt = expectedMessagesUsage({ ...lastBody(), model: CLAUDE }).input_tokens;
    expect(before.quota - (await balances(h, c)).quota).toBe(claudeCharge(prompt, 5));

    const claude = anthropicClient(h, c);
    let streamed = '';
    for await (const ev of await claude.messages.create({ model: CLAUDE, max_tokens: 64, messages, stream: true })) {
      if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') streamed += ev.delta.text;
    }
    expect(streamed).toBe('Hello from the fake Claude');
    expect(last().path).toBe(`${ROOT}/anthropic/models/claude-3-5-sonnet-v2@20241022:streamRawPredict`);
    expect(lastBody()).toEqual({ anthropic_version: 'vertex-2023-10-16', max_tokens: 64, messages, stream: true });
    const logs = await consumeLogs(h, c.userId);
    expect(logs.map((l) => Number(l.quota))).toEqual([claudeCharge(prompt, 5), claudeCharge(prompt, 5)]);
    expect(before.quota - (await balances(h, c)).quota).toBe(2 * claudeCharge(prompt, 5));
  });

  it('caches the access token: N concurrent calls of a fresh channel share one token request', async () => {
    const sa = makeServiceAccount({ tokenUri: vertex.tokenUri, name: 'concurrent' });
    const fresh = await startFakeVertex({ serviceAccounts: [sa.account] });
    try {
      const key = JSON.stringify({ ...sa.key, token_uri: fresh.tokenUri });
      const model = 'gemini-2.5-pro';
      await h.server.ctx.options.set('ModelRatio', JSON.stringify({ [GEMINI]: 2, [CLAUDE]: 1.5, [REFUSED]: 1, [model]: 1 }));
      await addChannel(h.root, { type: 41, key, base_url: fresh.url, other: '{"default":"us-central1","gemini-2.5-pro":"europe-west4"}', models: model });
      // Five concurrent reservations of gemini-2.5-pro's 65 536-token reply at completion ratio 8.
      const c = await addCaller(h, { quota: 5_000_000, remain: 5_000_000 });
      const replies = await Promise.all(Array.from({ length: 5 }, () => c.client.chat.completions.create({ model, messages })));
      expect(replies.every((r) => r.choices[0]!.message.content === 'Hello from the fake Gemini')).toBe(true);
      await c.client.chat.completions.create({ model, messages });
      expect(fresh.tokensIssued()).toBe(1);
      expect(fresh.requests.filter((r) => r.kind === 'token')).toHaveLength(1);
      // The per-model region of the channel's map.
      expect(fresh.requests.at(-1)!.path).toBe(`/v1/projects/fake-project/locations/europe-west4/publishers/google/models/${model}:generateContent`);
    } finally {
      await fresh.close();
    }
  });

  it("fetches a key's token_uri on another host than the channel's through the SSRF guard: refused on loopback until the operator allows it", async () => {
    // The channel reaches the fake through a proxy, so the key's token_uri (the fake itself) is not the channel's host.
    const proxy = await startRecordingProxy(vertex.url, { passthrough: true });
    const model = 'gemini-1.5-flash';
    try {
      await h.server.ctx.options.set('ModelRatio', JSON.stringify({ [GEMINI]: 2, [CLAUDE]: 1.5, [REFUSED]: 1, [model]: 1 }));
      await addChannel(h.root, { type: 41, key: JSON.stringify(knownKey), base_url: proxy.url, other: 'us-east5', models: model });
      const c = await addCaller(h);
      const before = await balances(h, c);
      const tokensBefore = vertex.requests.filter((r) => r.kind === 'token').length;
      const err = (await c.client.chat.completions.create({ model, messages }).catch((e: unknown) => e)) as { status: number; message: string };
      expect(err.status).toBe(500);
      expect(err.message).toContain("Vertex AI token exchange refused: the key's token_uri is not fetched: the URL names 127.0.0.1, an address outbound requests may not reach");
      expect(vertex.requests.filter((r) => r.kind === 'token')).toHaveLength(tokensBefore);
      expect(proxy.seen).toHaveLength(0);
      expect(await balances(h, c)).toEqual(before);

      await h.server.ctx.options.set('OutboundAllowedRanges', '127.0.0.1/32');
      const res = await c.client.chat.completions.create({ model, messages });
      expect(res.choices[0]!.message.content).toBe('Hello from the fake Gemini');
      expect(vertex.requests.filter((r) => r.kind === 'token')).toHaveLength(tokensBefore + 1);
      expect(proxy.seen.at(-1)!.headers.authorization).toMatch(/^Bearer ya29\.c\.fake/);
    } finally {
      await h.server.ctx.options.set('OutboundAllowedRanges', '');
      await proxy.close();
    }
  });

  it('a refused token exchange is a non-retryable channel error with Google\'s message; the channel is disabled', async () => {
    await h.server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const c = await addCaller(h);
    const before = await balances(h, c);
    const err = (await c.client.chat.completions.create({ model: REFUSED, messages }).catch((e: unknown) => e)) as { status: number; message: string };
    expect(vertex.requests.at(-1)).toMatchObject({ kind: 'token', rejected: { status: 400, message: 'Invalid JWT Signature.' } });
    expect(err.status).toBe(500);
    expect(err.message).toContain('Vertex AI token exchange refused: invalid_grant: Invalid JWT Signature.');
    expect(await balances(h, c)).toEqual(before);
    const ch = await h.server.ctx.db.db.selectFrom('channels').select(['status', 'other_info']).where('id', '=', refusedId).executeTakeFirstOrThrow();
    expect(Number(ch.status)).toBe(3);
    expect(ch.other_info).toContain('Invalid JWT Signature.');
  });

  it('the channel test button works through the token exchange', async () => {
    const list = await h.root.get('/api/channel/search?keyword=');
    const ok = (list.body.data as Array<{ id: number; models: string }>).find((ch) => ch.models.startsWith(GEMINI))!;
    const tested = await h.root.get(`/api/channel/test/${ok.id}`);
    expect(tested.body).toMatchObject({ success: true, message: '' });
    const refused = await h.root.get(`/api/channel/test/${refusedId}`);
    expect(refused.body.success).toBe(false);
    expect(refused.body.message).toContain('Invalid JWT Signature.');
  });

  it('refuses a key that is not a service-account JSON, naming the expected format', async () => {
    const res = await h.root.post('/api/channel/', { type: 41, name: 'bad-vertex', key: 'not json', models: GEMINI, group: 'default' });
    expect(res.body.success).toBe(false);
    expect(res.body.message).toContain('service-account JSON key with project_id, client_email and private_key');
  });
});
