import { TokenStatus, UserStatus } from '@modelgate/shared';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCaller, addChannel, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';

/**
 * Issue 10: `/v1` bodies were read and buffered before the token was looked at, so anonymous
 * 30 MB uploads cost memory on every node. The token is now checked in an onRequest hook: these
 * uploads never finish, and the answer must come anyway.
 */
let h: RelayHarness;

beforeAll(async () => {
  h = await startRelayHarness();
  await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4' });
});
afterAll(() => h.close());

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: { error?: { message: string; type: string; code: string | null } };
  uploadFinished: boolean;
}

/**
 * Sends the headers and `sent` bytes of a body that is declared (or streamed) as much larger, keeps
 * the upload open, and resolves with the answer; rejects if none comes within 10 s.
 */
function unfinishedUpload(path: string, headers: Record<string, string>, opts: { chunked?: boolean; sent?: number } = {}): Promise<Answer> {
  const url = new URL(path, h.server.url);
  const declared = opts.chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(15 * 1024 * 1024) };
  const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...declared, ...headers } });
  req.on('error', () => {});
  req.write(Buffer.alloc(opts.sent ?? 64 * 1024, 0x20));
  // A chunked upload keeps going until the answer arrives.
  const drip = opts.chunked ? setInterval(() => req.write(Buffer.alloc(16 * 1024, 0x20)), 20) : undefined;
  return new Promise<Answer>((resolve, reject) => {
    const timer = setTimeout(() => {
      clearInterval(drip);
      req.destroy();
      reject(new Error('no answer while the upload was unfinished'));
    }, 10_000);
    req.on('response', (res) => {
      const uploadFinished = req.writableEnded;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        clearTimeout(timer);
        clearInterval(drip);
        req.destroy();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')), uploadFinished });
      });
    });
  });
}

describe('the token is checked before the body is read', () => {
  it('answers a request without a token (401) while its upload is unfinished', async () => {
    const a = await unfinishedUpload('/v1/chat/completions', {});
    expect(a.uploadFinished).toBe(false);
    expect(a.status).toBe(401);
    expect(a.body.error).toMatchObject({ type: 'new_api_error', code: 'relay_token_missing' });
    expect(a.headers['access-control-allow-origin']).toBe('*');
    expect(a.headers['x-oneapi-request-id']).toBeTruthy();
  });

  it('answers an unknown or a disabled token (401) and a banned owner (403) the same way', async () => {
    const unknown = await unfinishedUpload('/v1/embeddings', { authorization: 'Bearer sk-not-a-real-token' });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error?.code).toBe('relay_token_invalid');

    const disabled = await addCaller(h, { token: { status: TokenStatus.Disabled } });
    const d = await unfinishedUpload('/v1/chat/completions', { authorization: `Bearer sk-${disabled.key}`, 'accept-language': 'en' });
    expect(d.uploadFinished).toBe(false);
    expect(d.status).toBe(401);
    expect(d.body.error).toMatchObject({ message: 'This token is not available', code: 'relay_token_unavailable' });

    const banned = await addCaller(h);
    await h.server.ctx.users.update(banned.userId, { status: UserStatus.Disabled });
    const b = await unfinishedUpload('/v1/audio/transcriptions', { authorization: `Bearer sk-${banned.key}`, 'content-type': 'multipart/form-data; boundary=x' });
    expect(b.status).toBe(403);
    expect(b.body.error?.code).toBe('relay_user_disabled');
  });

  it('closes the connection after refusing a chunked (unbounded) upload', async () => {
    const a = await unfinishedUpload('/v1/chat/completions', { authorization: 'Bearer sk-nope' }, { chunked: true });
    expect(a.status).toBe(401);
    expect(a.headers.connection).toBe('close');
  });

  it('answers an unknown /v1 path without reading a large body', async () => {
    const a = await unfinishedUpload('/v1/no-such-endpoint', {});
    expect(a.uploadFinished).toBe(false);
    // The declared body is over the default (/api) limit that unknown paths get.
    expect(a.status).toBe(413);
    expect(a.body.error).toMatchObject({ type: 'invalid_request_error', code: 'request_too_large' });
  });

  it('keeps CORS preflight working without a token', async () => {
    const res = await fetch(`${h.server.url}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).toBe('authorization, content-type');
  });

  it('still relays, lists models and reads billing with a good token (authenticated once, by the gate)', async () => {
    const c = await addCaller(h);
    const res = await c.client.chat.completions.create({ model: 'gpt-4', messages: [{ role: 'user', content: 'Hi' }] });
    expect(res.choices[0]!.message.content).toBe('Hello from the fake OpenAI');
    expect((await c.client.models.list()).data.map((m) => m.id)).toContain('gpt-4');
    const sub = await fetch(`${h.server.url}/dashboard/billing/subscription`, { headers: { authorization: `Bearer sk-${c.key}` } });
    expect(sub.status).toBe(200);
    const noToken = await fetch(`${h.server.url}/v1/models`);
    expect(noToken.status).toBe(401);
  });
});

describe('a caller with nothing left is refused before a large body is read', () => {
  it('a zero-balance user or an exhausted token gets its answer while a 15 MB upload is unfinished', async () => {
    const poor = await addCaller(h, { quota: 0 });
    const p = await unfinishedUpload('/v1/chat/completions', { authorization: `Bearer sk-${poor.key}`, 'accept-language': 'en' });
    expect(p.uploadFinished).toBe(false);
    expect(p.status).toBe(403);
    expect(p.body.error).toMatchObject({ type: 'insufficient_user_quota', code: 'insufficient_user_quota' });
    expect(p.body.error?.message).toMatch(/user quota: 0, need quota/);

    const spent = await addCaller(h, { remain: 0 });
    const s = await unfinishedUpload('/v1/chat/completions', { authorization: `Bearer sk-${spent.key}` }, { chunked: true });
    expect(s.status).toBe(401);
    expect(s.body.error?.message).toMatch(/token quota: 0/);
  });
});
