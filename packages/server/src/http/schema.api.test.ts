import { apiResponse, token } from '@modelgate/shared/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiClient, newUser, rootClient } from '../test-support/api-client.js';
import { testDbKinds } from '../test-support/test-db.js';
import { startTestServer, type TestServer } from '../test-support/test-server.js';
import { ResponseShapeError, serializerCompiler } from './schema.js';

/**
 * Declared routes (issue 11): the schemas of `@modelgate/shared/api` accept exactly what the
 * reference console sends, refuse bad input in the `/api` envelope with a message naming the
 * field, and — in tests — every answer must match its response schema.
 */
describe.each(testDbKinds())('declared /api schemas on %s', (kind) => {
  let srv: TestServer;
  let root: ApiClient;
  let anon: ApiClient;

  beforeAll(async () => {
    srv = await startTestServer({ kind });
    root = await rootClient(srv.url);
    anon = new ApiClient(srv.url);
  });
  afterAll(() => srv?.close());

  it('signs up with the body the reference console sends: aff_code null when there was no ?aff=', async () => {
    // register.js: inputs plus `aff_code = localStorage.getItem('aff')`, which is null by default.
    const body = { username: 'refuser', password: 'password123', password2: 'password123', email: '', verification_code: '', aff_code: null };
    const r = await anon.post('/api/user/register?turnstile=', body);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, message: '' });
    expect((await new ApiClient(srv.url).login('refuser', 'password123')).body.success).toBe(true);
  });

  it('still credits the inviter when aff_code is a real code', async () => {
    const inviter = await newUser(srv.url, 'inviter');
    const code = (await inviter.get('/api/user/aff')).body.data as string;
    const r = await anon.post('/api/user/register', { username: 'invitee', password: 'password123', password2: 'password123', aff_code: code });
    expect(r.body.success).toBe(true);
    expect((await inviter.get('/api/user/self')).body.data.aff_count).toBe(1);
  });

  it('answers the model-ratio reset with a success text, like the reference (its console toasts the message as it is)', async () => {
    const r = await root.post('/api/option/rest_model_ratio');
    expect(r.body).toEqual({ success: true, message: expect.stringMatching(/^(模型倍率已重置为默认值|Model ratios were reset to the defaults)$/) });
  });

  it('names the missing or mistyped field in the language asked for', async () => {
    root.lang = 'en';
    expect((await root.post('/api/channel/batch', {})).body).toEqual({ success: false, message: 'Required field missing: ids (array)' });
    expect((await root.post('/api/channel/batch', { ids: 'x' })).body).toEqual({ success: false, message: 'Field has the wrong type: ids (array)' });
    expect((await root.put('/api/option/', { key: '', value: 'x' })).body).toEqual({ success: false, message: 'Required field missing: key' });
    expect((await root.post('/api/user/manage', { id: 2, action: 'explode' })).body.message).toBe('Invalid action: action (promote | demote | disable | enable | delete)');
    expect((await root.get('/api/user/?p=x')).body.message).toBe('Must be an integer: p');
    expect((await root.get('/api/channel/search?keyword=a&keyword=b')).body.message).toBe('Field has the wrong type: keyword (string)');
    root.lang = 'zh-CN';
    expect((await root.post('/api/channel/batch', {})).body.message).toBe('缺少必填字段: ids (array)');
    expect((await root.put('/api/channel/tag', { tag: 't', weight: 'heavy' })).body.message).toBe('必须是整数: weight');
    root.lang = 'en';
  });

  it('asks for a session before it reads the body: no session is a 401 whatever was sent', async () => {
    for (const [method, path, body] of [
      ['PUT', '/api/user/', { id: 'abc' }],
      ['POST', '/api/channel/batch', { ids: 'x' }],
      ['PUT', '/api/option/', {}],
    ] as const) {
      const r = await anon.call(method, path, body);
      expect(r.status, `${method} ${path}`).toBe(401);
      expect(r.body.success).toBe(false);
    }
  });

  it('keeps the relay reading its own bytes: a /v1 body is checked by the relay, in an OpenAI error', async () => {
    const tok = (await root.post('/api/token/', { name: 'schema', unlimited_quota: true })).body.data as { key: string };
    const res = await fetch(`${srv.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${tok.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [] }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error', param: 'messages' } });
  });
});

describe('response checks (tests only)', () => {
  const schema = apiResponse(token);
  const compile = (check: boolean, seen?: string[]) =>
    serializerCompiler(check, (m) => seen?.push(m))({ schema, method: 'GET', url: '/api/token/:id', httpStatus: '200' } as never);
  const good = {
    success: true,
    message: '',
    data: { id: 1, user_id: 1, key: 'k', status: 1, name: 'n', created_time: 1, accessed_time: 1, expired_time: -1, remain_quota: 0, unlimited_quota: true, model_limits_enabled: false, model_limits: '', allow_ips: '', used_quota: 0, group: '', rpm_limit: 0, tpm_limit: 0, period_limits: {} },
  };

  it('passes an answer of the declared shape through unchanged', () => {
    expect(JSON.parse(compile(true)(good))).toEqual(good);
    expect(JSON.parse(compile(true)({ success: false, message: 'no' }))).toEqual({ success: false, message: 'no' });
  });

  it('fails on a missing, mistyped or undeclared field, and names it', () => {
    const seen: string[] = [];
    const { key: _key, ...missing } = good.data;
    expect(() => compile(true, seen)({ ...good, data: missing })).toThrow(ResponseShapeError);
    expect(() => compile(true, seen)({ ...good, data: { ...good.data, status: '1' } })).toThrow(/status/);
    expect(() => compile(true, seen)({ ...good, data: { ...good.data, password: 'hash' } })).toThrow(/undeclared field "data.password"/);
    expect(() => compile(true, seen)({ ...good, message: 'saved' })).toThrow(ResponseShapeError);
    expect(seen).toHaveLength(4);
  });

  it('costs production nothing: answers are plain JSON there', () => {
    const loose = { ...good, data: { anything: z.string().safeParse(1).success } };
    expect(compile(false)(loose)).toBe(JSON.stringify(loose));
  });
});
