import { createHash } from 'node:crypto';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeSpeechLength, fakeTranscript } from './audio.js';
import { FAKE_EMBEDDING_DIMENSIONS, fakeEmbedding } from './embeddings.js';
import { FAKE_PNG } from './images.js';
import { DEFAULT_FAKE_MODELS } from './models.js';
import { startFakeOpenAI } from './server.js';
import type { FakeOpenAI } from './types.js';
import { expectedEmbeddingUsage } from './usage.js';

const KEY = 'sk-test-endpoints';
let fake: FakeOpenAI;
let client: OpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKeys: [KEY, 'sk-second'], balance: { hardLimitUsd: 120, totalUsageCents: 2550 } });
  client = new OpenAI({ apiKey: KEY, baseURL: fake.baseURL, maxRetries: 0, timeout: 10_000 });
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => fake.reset());

function call(path: string, init: { method?: string; body?: unknown; key?: string | null } = {}): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.key !== null) headers.authorization = `Bearer ${init.key ?? KEY}`;
  return fetch(`${fake.url}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: AbortSignal.timeout(10_000),
  });
}

describe('embeddings', () => {
  it('serves the SDK default (base64) so it decodes to the deterministic vectors', async () => {
    const request = { model: 'text-embedding-3-small', input: ['hello world', 'second input here'] };
    const result = await client.embeddings.create(request);
    expect(fake.requests[0].body).toMatchObject({ encoding_format: 'base64' });
    expect(result.object).toBe('list');
    expect(result.model).toBe(request.model);
    expect(result.data.map((d) => d.index)).toEqual([0, 1]);
    expect(result.data[0].embedding).toEqual(fakeEmbedding('hello world'));
    expect(result.data[1].embedding).toHaveLength(FAKE_EMBEDDING_DIMENSIONS);
    expect(result.usage).toEqual(expectedEmbeddingUsage(request));
    expect(result.usage).toEqual({ prompt_tokens: 5, total_tokens: 5 });
  });

  it('returns float arrays and honours dimensions', async () => {
    const res = await call('/v1/embeddings', { body: { model: 'text-embedding-3-small', input: 'abc', encoding_format: 'float', dimensions: 40 } });
    const body = (await res.json()) as { data: { object: string; embedding: number[] }[] };
    expect(body.data[0].object).toBe('embedding');
    expect(body.data[0].embedding).toEqual(fakeEmbedding('abc', 40));
  });
});

describe('images', () => {
  it('returns URLs that serve a PNG, and b64_json on request', async () => {
    const byUrl = await client.images.generate({ model: 'dall-e-2', prompt: 'a red cat', n: 2, response_format: 'url' });
    expect(byUrl.created).toBeGreaterThan(0);
    expect(byUrl.data).toHaveLength(2);
    const url = byUrl.data?.[0].url ?? '';
    expect(url.startsWith(fake.url)).toBe(true);
    const png = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await png.arrayBuffer()).equals(FAKE_PNG)).toBe(true);

    const inline = await client.images.generate({ model: 'dall-e-3', prompt: 'a red cat', response_format: 'b64_json' });
    expect(inline.data?.[0].b64_json).toBe(FAKE_PNG.toString('base64'));
    expect(inline.data?.[0].revised_prompt).toBe('a red cat');
  });

  it('refuses n > 1 for dall-e-3', async () => {
    await expect(client.images.generate({ model: 'dall-e-3', prompt: 'x', n: 2 })).rejects.toMatchObject({ status: 400 });
  });
});

describe('audio', () => {
  it('speaks binary audio whose length follows the input', async () => {
    const input = 'The quick brown fox';
    const response = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input });
    expect(response.headers.get('content-type')).toBe('audio/mpeg');
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.length).toBe(fakeSpeechLength(input));
    expect(bytes.subarray(0, 3).toString('latin1')).toBe('ID3');
    const wav = await call('/v1/audio/speech', { body: { model: 'tts-1', voice: 'alloy', input: 'hé', response_format: 'wav' } });
    expect(wav.headers.get('content-type')).toBe('audio/wav');
    expect((await wav.arrayBuffer()).byteLength).toBe(fakeSpeechLength('hé'));
  });

  it('transcribes a multipart upload from the SDK and records its fields', async () => {
    const audio = Buffer.alloc(2345, 7);
    const result = await client.audio.transcriptions.create({ file: await toFile(audio, 'speech.mp3', { type: 'audio/mpeg' }), model: 'whisper-1' });
    expect(result.text).toBe(fakeTranscript(2345, 'transcribe'));
    const recorded = fake.requests[0];
    expect(recorded.fields).toMatchObject({ model: 'whisper-1' });
    const sha256 = createHash('sha256').update(audio).digest('hex');
    expect(recorded.files).toEqual([{ field: 'file', filename: 'speech.mp3', contentType: 'audio/mpeg', size: 2345, sha256 }]);
    expect(recorded.rawBodyLength).toBeGreaterThan(2345);
  });

  it('answers text, srt, vtt and verbose_json formats, and translations', async () => {
    const file = await toFile(Buffer.alloc(1500), 'a.wav');
    const text = await client.audio.transcriptions.create({ file, model: 'whisper-1', response_format: 'text' });
    expect(text).toBe(`${fakeTranscript(1500, 'transcribe')}\n`);
    const srt = await client.audio.transcriptions.create({ file: await toFile(Buffer.alloc(1500), 'a.wav'), model: 'whisper-1', response_format: 'srt' });
    expect(srt).toBe(`1\n00:00:00,000 --> 00:00:01,500\n${fakeTranscript(1500, 'transcribe')}\n\n`);
    const vtt = await client.audio.transcriptions.create({ file: await toFile(Buffer.alloc(1500), 'a.wav'), model: 'whisper-1', response_format: 'vtt' });
    expect(vtt).toBe(`WEBVTT\n\n00:00:00.000 --> 00:00:01.500\n${fakeTranscript(1500, 'transcribe')}\n\n`);
    const verbose = await client.audio.transcriptions.create({
      file: await toFile(Buffer.alloc(1500), 'a.wav'),
      model: 'whisper-1',
      response_format: 'verbose_json',
      timestamp_granularities: ['word'],
    });
    expect(verbose).toMatchObject({ task: 'transcribe', duration: 1.5, text: fakeTranscript(1500, 'transcribe') });
    expect(verbose.segments?.[0]).toMatchObject({ id: 0, start: 0, end: 1.5 });
    expect(verbose.words?.map((w) => w.word).join(' ')).toBe(fakeTranscript(1500, 'transcribe'));
    const translated = await client.audio.translations.create({ file: await toFile(Buffer.alloc(99), 'b.mp3'), model: 'whisper-1' });
    expect(translated.text).toBe(fakeTranscript(99, 'translate'));
  });

  it('requires the file part', async () => {
    const form = new FormData();
    form.append('model', 'whisper-1');
    const res = await fetch(`${fake.baseURL}/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: form, signal: AbortSignal.timeout(10_000) });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { param: 'file', code: 'missing_required_parameter' } });
  });
});

describe('moderations', () => {
  it('flags violent input only', async () => {
    const result = await client.moderations.create({ model: 'omni-moderation-latest', input: ['have a nice day', 'I will kill it'] });
    expect(result.id).toMatch(/^modr-/u);
    expect(result.results.map((r) => r.flagged)).toEqual([false, true]);
    expect(result.results[1].categories.violence).toBe(true);
    expect(result.results[0].categories.violence).toBe(false);
  });
});

describe('models', () => {
  it('lists the models through the SDK and retrieves one', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) {
      expect(model).toMatchObject({ object: 'model', owned_by: expect.any(String) as string, created: expect.any(Number) as number });
      ids.push(model.id);
    }
    expect(ids).toEqual(DEFAULT_FAKE_MODELS);
    expect(await client.models.retrieve('gpt-4o')).toMatchObject({ id: 'gpt-4o', object: 'model' });
    await expect(client.models.retrieve('nope-1')).rejects.toMatchObject({ status: 404, code: 'model_not_found' });
  });

  it('serves a custom list and refuses other models when strict', async () => {
    const strict = await startFakeOpenAI({ models: ['only-model'], strictModels: true });
    try {
      const sdk = new OpenAI({ apiKey: 'x', baseURL: strict.baseURL, maxRetries: 0, timeout: 10_000 });
      const page = await sdk.models.list();
      expect(page.data.map((m) => m.id)).toEqual(['only-model']);
      const ok = await sdk.chat.completions.create({ model: 'only-model', messages: [{ role: 'user', content: 'hi' }] });
      expect(ok.model).toBe('only-model');
      await expect(sdk.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
        status: 404,
        code: 'model_not_found',
      });
    } finally {
      await strict.close();
    }
  });
});

describe('billing', () => {
  it('serves subscription and usage with and without the /v1 prefix', async () => {
    for (const prefix of ['/v1', '']) {
      const sub = await call(`${prefix}/dashboard/billing/subscription`);
      expect(sub.status).toBe(200);
      expect(await sub.json()).toMatchObject({
        object: 'billing_subscription',
        has_payment_method: true,
        hard_limit_usd: 120,
        soft_limit_usd: 120,
        system_hard_limit_usd: 120,
        access_until: 0,
      });
      const usage = await call(`${prefix}/dashboard/billing/usage?start_date=2024-01-01&end_date=2024-01-31`);
      expect(await usage.json()).toMatchObject({ object: 'list', total_usage: 2550 });
    }
    expect(fake.requests.map((r) => r.path)).toContain('/dashboard/billing/usage');
    expect(fake.requests.find((r) => r.path === '/v1/dashboard/billing/usage')?.query).toEqual({ start_date: '2024-01-01', end_date: '2024-01-31' });
  });

  it('reflects setBalance and requires the usage date range', async () => {
    fake.setBalance({ hardLimitUsd: 5, totalUsageCents: 600, hasPaymentMethod: false });
    try {
      const sub = (await (await call('/v1/dashboard/billing/subscription')).json()) as { hard_limit_usd: number; has_payment_method: boolean };
      const usage = (await (await call('/v1/dashboard/billing/usage?start_date=2024-01-01&end_date=2024-04-10')).json()) as { total_usage: number };
      // The gateway's balance rule: hard_limit_usd − total_usage / 100 → here below zero.
      expect(sub.hard_limit_usd - usage.total_usage / 100).toBe(-1);
      expect(sub.has_payment_method).toBe(false);
      const missing = await call('/v1/dashboard/billing/usage?start_date=2024-01-01');
      expect(missing.status).toBe(400);
      expect(await missing.json()).toMatchObject({ error: { param: 'end_date' } });
    } finally {
      fake.setBalance({ hardLimitUsd: 120, totalUsageCents: 2550, hasPaymentMethod: true });
    }
  });
});

describe('routing and auth', () => {
  it('answers unknown routes with an OpenAI-style 404', async () => {
    const res = await call('/v1/does-not-exist');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: { message: 'Invalid URL (GET /v1/does-not-exist)', type: 'invalid_request_error', param: null, code: null },
    });
    // Only billing routes work without /v1, as on api.openai.com.
    expect((await call('/chat/completions', { body: { model: 'gpt-4o', messages: [] } })).status).toBe(404);
  });

  it('rejects a wrong key with invalid_api_key and a missing one, and accepts every configured key', async () => {
    const wrong = await call('/v1/models', { key: 'sk-wrong-key-0000' });
    expect(wrong.status).toBe(401);
    const body = (await wrong.json()) as { error: { message: string; type: string; param: null; code: string } };
    expect(body.error).toMatchObject({ type: 'invalid_request_error', param: null, code: 'invalid_api_key' });
    expect(body.error.message).toMatch(/^Incorrect API key provided: sk-\*+0000\./u);
    expect(body.error.message).not.toContain('sk-wrong-key-0000');

    const none = await call('/v1/models', { key: null });
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: { message: string } }).error.message).toMatch(/didn't provide an API key/u);

    expect((await call('/v1/models', { key: 'sk-second' })).status).toBe(200);
    await expect(new OpenAI({ apiKey: 'sk-bad', baseURL: fake.baseURL, maxRetries: 0 }).models.list()).rejects.toMatchObject({
      status: 401,
      code: 'invalid_api_key',
    });
    // Rejected requests are still recorded, so tests can see what the gateway sent.
    expect(fake.requests.filter((r) => r.path === '/v1/models')).toHaveLength(4);
  });

  it('accepts any key when apiKeys is not set', async () => {
    const open = await startFakeOpenAI();
    try {
      const res = await fetch(`${open.baseURL}/models`, { signal: AbortSignal.timeout(10_000) });
      expect(res.status).toBe(200);
    } finally {
      await open.close();
    }
  });
});

describe('control endpoints', () => {
  it('sets faults, balance and lists requests over HTTP', async () => {
    const set = await fetch(`${fake.url}/__fake/fault`, { method: 'POST', body: JSON.stringify({ status: 503, times: 1 }), signal: AbortSignal.timeout(10_000) });
    expect(await set.json()).toEqual({ ok: true });
    expect((await call('/v1/models')).status).toBe(503);
    expect((await call('/v1/models')).status).toBe(200);
    const bad = await fetch(`${fake.url}/__fake/fault`, { method: 'POST', body: JSON.stringify({ status: 'x' }), signal: AbortSignal.timeout(10_000) });
    expect(bad.status).toBe(400);
    const listed = (await (await fetch(`${fake.url}/__fake/requests`, { signal: AbortSignal.timeout(10_000) })).json()) as { requests: { path: string }[] };
    expect(listed.requests.map((r) => r.path)).toEqual(['/v1/models', '/v1/models']);
    await fetch(`${fake.url}/__fake/reset`, { method: 'POST', signal: AbortSignal.timeout(10_000) });
    expect(fake.requests).toHaveLength(0);
  });
});
