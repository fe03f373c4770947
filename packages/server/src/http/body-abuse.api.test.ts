import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, type ApiClient } from '../test-support/api-client.js';
import { addCaller, addChannel, startRelayHarness, type RelayHarness, type TestCaller } from '../test-support/relay-fixtures.js';

/**
 * Issue 22 item 5: every family of routes answers an oversized body with 413 and a body nested
 * too deep or an array too long with 400, each in that family's own error shape and language.
 * Small limits (1 MB JSON relay, 2 MB uploads, 1 MB /api) keep the uploads light.
 */
const MB = 1024 * 1024;
let h: RelayHarness;
let c: TestCaller;
let user: ApiClient;

beforeAll(async () => {
  h = await startRelayHarness({ env: { MAX_REQUEST_BODY_MB: '1', MAX_AUDIO_BODY_MB: '2', MAX_API_BODY_MB: '1' } });
  await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4o-mini,dall-e-2' });
  c = await addCaller(h, { quota: 1e12, unlimited: true });
  user = await newUser(h.server.url, 'abuser');
});
afterAll(() => h.close());

/** The fields of every family's error shape the checks read. */
interface Reply {
  error?: { message?: string; code?: string; type?: string };
  type?: string;
  description?: string;
  result?: unknown;
  message?: string;
  data?: unknown;
  success?: boolean;
}
type Sent = { status: number; json: Reply };

async function send(path: string, body: string | FormData, headers: Record<string, string> = {}): Promise<Sent> {
  const res = await fetch(`${h.server.url}${path}`, {
    method: 'POST',
    headers: { ...(typeof body === 'string' ? { 'content-type': 'application/json' } : {}), 'accept-language': 'en', ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Reply) : {} };
}

const key = () => ({ authorization: `Bearer sk-${c.key}` });
const session = () => ({ cookie: user.cookie, 'new-api-user': String(user.userId) });
const big = (bytes: number) => JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x'.repeat(bytes) }] });
const deep = (levels: number) => `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"x":${'['.repeat(levels)}${']'.repeat(levels)}}`;
const long = (items: number) => `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"x":[${new Array(items).fill(0).join(',')}]}`;

/** Each route family: where it is, its credentials, and how its error object carries the message. */
const FAMILIES: Array<{ name: string; path: string; headers: () => Record<string, string>; message: (j: Reply) => unknown }> = [
  { name: 'OpenAI /v1/chat/completions', path: '/v1/chat/completions', headers: key, message: (j) => j.error?.message },
  { name: 'Anthropic /v1/messages', path: '/v1/messages', headers: key, message: (j) => (j.type === 'error' ? j.error?.message : undefined) },
  { name: 'Gemini /v1beta generateContent', path: '/v1beta/models/gpt-4o-mini:generateContent', headers: key, message: (j) => j.error?.message },
  { name: 'playground /pg', path: '/pg/chat/completions', headers: session, message: (j) => j.error?.message },
  { name: 'Midjourney /mj', path: '/mj/submit/imagine', headers: key, message: (j) => (j.result === null ? j.description : undefined) },
  { name: 'Suno /suno', path: '/suno/submit/music', headers: key, message: (j) => (j.data === null ? j.message : undefined) },
  { name: 'management /api', path: '/api/token/', headers: session, message: (j) => (j.success === false ? j.message : undefined) },
];

describe('413: a body over the limit, in the route’s own shape', () => {
  for (const f of FAMILIES) {
    it(f.name, async () => {
      const r = await send(f.path, big(1.5 * MB), f.headers());
      expect(r.status).toBe(413);
      expect(f.message(r.json), JSON.stringify(r.json)).toBe('Request body too large, limit (MB): 1');
    });
  }

  it('a base64 image inside JSON counts toward the JSON limit', async () => {
    const image = `data:image/png;base64,${'A'.repeat(1.2 * MB)}`;
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: image } }] }] });
    const r = await send('/v1/chat/completions', body, key());
    expect(r.status).toBe(413);
    expect(r.json.error).toMatchObject({ code: 'request_too_large', type: 'invalid_request_error' });
  });

  it('multipart image edits take the upload limit (2 MB), then 413 too', async () => {
    const form = (bytes: number) => {
      const f = new FormData();
      f.set('model', 'dall-e-2');
      f.set('prompt', 'a cat');
      f.set('image', new File([Buffer.alloc(bytes, 1)], 'a.png', { type: 'image/png' }));
      return f;
    };
    expect((await send('/v1/images/edits', form(1.5 * MB), key())).status).not.toBe(413);
    const r = await send('/v1/images/edits', form(2.5 * MB), key());
    expect(r.status).toBe(413);
    expect(r.json.error?.message).toBe('Request body too large, limit (MB): 2');
  });

  it('sign-in forms declare a 64 KB limit on their contract', async () => {
    const r = await send('/api/user/login', JSON.stringify({ username: 'x'.repeat(70 * 1024), password: 'p' }));
    expect(r).toEqual({ status: 413, json: { success: false, message: 'Request body too large, limit (MB): 0.0625' } });
    const zh = await send('/api/user/register', JSON.stringify({ username: 'x'.repeat(70 * 1024) }), { 'accept-language': 'zh-CN' });
    expect(zh.json.message).toBe('请求体过大，上限（MB）: 0.0625');
    expect((await send('/api/user/login', JSON.stringify({ username: 'nobody', password: 'p' }))).status).toBe(200);
  });
});

describe('400: JSON nested too deep or with too long an array', () => {
  for (const f of FAMILIES.filter((x) => !x.path.startsWith('/api'))) {
    it(`${f.name}: deeper than 128 levels, or an array over 200 000 elements`, async () => {
      const d = await send(f.path, deep(129), f.headers());
      expect(d.status).toBe(400);
      expect(f.message(d.json), JSON.stringify(d.json)).toBe('Request body JSON is nested too deeply, limit (levels): 128');
      const a = await send(f.path, long(200_001), f.headers());
      expect(a.status).toBe(400);
      expect(f.message(a.json), JSON.stringify(a.json)).toBe('Request body JSON has an array with too many elements, limit (elements): 200000');
    });
  }

  it('the relay takes what clients really send: 100 levels of tool schema, 100 000 token ids', async () => {
    const ok = await send('/v1/chat/completions', deep(100), key());
    expect(ok.status).toBe(200);
    const ids = JSON.stringify({ model: 'gpt-4o-mini', input: new Array(100_000).fill(42) });
    expect((await send('/v1/embeddings', ids, key())).status).not.toBe(400);
  });

  it('/api: deeper than 64 levels or an array over 10 000 elements, in the envelope and the caller’s language', async () => {
    const d = await send('/api/token/', `{"name":"t","x":${'['.repeat(65)}${']'.repeat(65)}}`, session());
    expect(d).toEqual({ status: 400, json: { success: false, message: 'Request body JSON is nested too deeply, limit (levels): 64' } });
    const a = await send('/api/channel/batch', JSON.stringify({ ids: new Array(10_001).fill(1) }), session());
    expect(a).toEqual({ status: 400, json: { success: false, message: 'Request body JSON has an array with too many elements, limit (elements): 10000' } });
    const zh = await send('/api/user/login', `{"username":${'['.repeat(65)}${']'.repeat(65)}}`, { 'accept-language': 'zh-CN' });
    expect(zh.json.message).toBe('请求体 JSON 嵌套层级过深，上限（层）: 64');
    // At the limits the body is read, and the route judges it (here: a user may not batch-delete channels).
    const within = await send('/api/token/', `{"name":"ok-depth","x":${'['.repeat(63)}${']'.repeat(63)}}`, session());
    expect(within).toMatchObject({ status: 200, json: { success: true } });
    // Still the same guard for prototype keys as before.
    const poisoned = await send('/api/token/', '{"name":"p","__proto__":{"role":100}}', session());
    expect(poisoned.json.success).toBe(false);
  });
});
