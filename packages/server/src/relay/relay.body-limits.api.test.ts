import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCaller, addChannel, startRelayHarness, type RelayHarness, type TestCaller } from '../test-support/relay-fixtures.js';

/**
 * Issue 10: one 32 MB body limit for everything. Each kind of route now has its own, answered with
 * 413 in that route's envelope. Small limits here (1 MB JSON relay, 2 MB audio, 1 MB /api) keep the
 * uploads light; the defaults (20 / 30 / 2 MB) are checked in config.test.ts.
 */
let h: RelayHarness;
let c: TestCaller;
const MB = 1024 * 1024;

beforeAll(async () => {
  h = await startRelayHarness({ env: { MAX_REQUEST_BODY_MB: '1', MAX_AUDIO_BODY_MB: '2', MAX_API_BODY_MB: '1' } });
  await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4,whisper-1' });
  c = await addCaller(h, { quota: 1e12, unlimited: true });
});
afterAll(() => h.close());

function chat(bytes: number) {
  return fetch(`${h.server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer sk-${c.key}`, 'content-type': 'application/json', 'accept-language': 'en' },
    body: JSON.stringify({ model: 'gpt-4', messages: [{ role: 'user', content: 'word '.repeat(Math.floor(bytes / 5)) }] }),
  });
}

function transcribe(bytes: number) {
  const form = new FormData();
  form.set('model', 'whisper-1');
  form.set('file', new File([Buffer.alloc(bytes, 1)], 'a.mp3', { type: 'audio/mpeg' }));
  return fetch(`${h.server.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer sk-${c.key}` }, body: form });
}

describe('per-route body limits', () => {
  it('/api answers an oversized body with 413 in the {success:false,message} envelope', async () => {
    const res = await fetch(`${h.server.url}/api/token/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'accept-language': 'en' },
      body: JSON.stringify({ username: 'x'.repeat(1.5 * MB), password: 'whatever' }),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ success: false, message: 'Request body too large, limit (MB): 1' });
    const zh = await fetch(`${h.server.url}/api/token/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'x'.repeat(1.5 * MB) }) });
    expect(((await zh.json()) as { message: string }).message).toBe('请求体过大，上限（MB）: 1');
  });

  it('/v1 JSON routes answer an oversized body with 413 as an OpenAI error object', async () => {
    const res = await chat(1.5 * MB);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      error: { message: 'Request body too large, limit (MB): 1', type: 'invalid_request_error', param: null, code: 'request_too_large' },
    });
    expect((await chat(0.5 * MB)).status).toBe(200);
  });

  it('/v1/audio uploads have their own, larger limit', async () => {
    const ok = await transcribe(1.5 * MB);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { text: string }).text).toContain('Fake transcription');
    const tooBig = await transcribe(2.5 * MB);
    expect(tooBig.status).toBe(413);
    expect(await tooBig.json()).toMatchObject({ error: { code: 'request_too_large', message: expect.stringContaining('2') } });
  });
});
