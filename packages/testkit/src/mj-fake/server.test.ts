import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeMj, type FakeMj } from './server.js';

const PNG = 'data:image/png;base64,iVBORw0KGgo=';

describe('Midjourney proxy fake', () => {
  let mj: FakeMj;
  let open: FakeMj;
  const hooked: Array<{ id: string; status: string; progress: string }> = [];
  let hookUrl = '';
  const hookServer = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      hooked.push(JSON.parse(text) as { id: string; status: string; progress: string });
      res.end();
    });
  });

  beforeAll(async () => {
    await new Promise<void>((r) => hookServer.listen(0, '127.0.0.1', () => r()));
    hookUrl = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/hook`;
    mj = await startFakeMj({ secret: 's3cret', stepMs: 20 });
    open = await startFakeMj({ kind: 'open', stepMs: 20 });
  });
  afterAll(async () => {
    await mj.close();
    await open.close();
    await new Promise((r) => hookServer.close(r));
  });

  const call = async (f: FakeMj, path: string, body?: unknown, secret = 's3cret') => {
    const res = await fetch(`${f.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'mj-api-secret': secret, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the proxy's loose JSON, read field by field
    return { status: res.status, text, json: text ? (JSON.parse(text) as any) : null };
  };
  const settle = async (f: FakeMj, id: string) => {
    for (let i = 0; i < 50 && !['SUCCESS', 'FAILURE'].includes(f.tasks.get(id)?.status ?? ''); i++) await new Promise((r) => setTimeout(r, 15));
    return (await call(f, `/mj/task/${id}/fetch`)).json;
  };

  it('refuses a wrong mj-api-secret with 401 and an empty body', async () => {
    const r = await call(mj, '/mj/submit/imagine', { prompt: 'cat' }, 'wrong');
    expect(r).toMatchObject({ status: 401, text: '' });
  });

  it('runs a task to SUCCESS with progress, an image, buttons and notify callbacks; list-by-condition answers only known ids', async () => {
    const sub = await call(mj, '/mj/submit/imagine', { prompt: 'cat', notifyHook: hookUrl });
    expect(sub.json).toMatchObject({ code: 1, description: '提交成功', properties: {} });
    const id = sub.json.result as string;
    expect((await call(mj, `/mj/task/${id}/fetch`)).json).toMatchObject({ status: 'SUBMITTED', progress: '0%' });
    const done = await settle(mj, id);
    expect(done).toMatchObject({ id, action: 'IMAGINE', status: 'SUCCESS', progress: '100%', description: '/imagine cat' });
    expect(done.buttons.map((b: { label: string }) => b.label)).toContain('U1');
    const img = await fetch(done.imageUrl as string);
    expect(img.headers.get('content-type')).toBe('image/png');
    await new Promise((r) => setTimeout(r, 30));
    expect(hooked.filter((t) => t.id === id).map((t) => t.status)).toEqual(['IN_PROGRESS', 'SUCCESS']);
    const list = await call(mj, '/mj/task/list-by-condition', { ids: [id, 'unknown'] });
    expect(list.json.map((t: { id: string }) => t.id)).toEqual([id]);
    const up = await call(mj, '/mj/submit/action', { taskId: id, customId: done.buttons[0].customId });
    expect((await settle(mj, up.json.result)).action).toBe('UPSCALE');
    expect((await call(mj, `/mj/task/${id}/image-seed`)).json).toMatchObject({ code: 1 });
  });

  it('answers the documented codes: 24 banned, 4 validation, 3 unknown task, 22 queued; failures empty progress', async () => {
    expect((await call(mj, '/mj/submit/imagine', { prompt: 'a forbidden thing' })).json).toMatchObject({ code: 24, properties: { bannedWord: 'forbidden' } });
    expect((await call(mj, '/mj/submit/describe', { base64: 'nope' })).json.code).toBe(4);
    expect((await call(mj, '/mj/submit/blend', { base64Array: [PNG] })).json.code).toBe(4);
    expect((await call(mj, '/mj/submit/change', { taskId: 'none', action: 'UPSCALE', index: 1 })).json.code).toBe(3);
    mj.nextCode = 22;
    const queued = await call(mj, '/mj/submit/imagine', { prompt: 'dog' });
    expect(queued.json).toMatchObject({ code: 22, properties: { numberOfQueues: 1 } });
    const failed = await settle(mj, (await call(mj, '/mj/submit/imagine', { prompt: 'explode' })).json.result);
    expect(failed).toMatchObject({ status: 'FAILURE', progress: '' });
    expect(failed.failReason).not.toBe('');
    const up = await call(mj, '/mj/submit/upload-discord-images', { base64Array: [PNG, PNG] });
    expect(up.json.result).toHaveLength(2);
  });

  it('the open proxy has no plus endpoints and no buttons', async () => {
    expect((await call(open, '/mj/submit/action', { taskId: 'x', customId: 'y' })).status).toBe(404);
    const done = await settle(open, (await call(open, '/mj/submit/imagine', { prompt: 'cat' })).json.result);
    expect(done.status).toBe('SUCCESS');
    expect(done.buttons).toBeUndefined();
  });
});
