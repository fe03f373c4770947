import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSuno, type FakeSuno } from './server.js';

interface Envelope {
  code: string;
  message: string;
  data: unknown;
}

describe('Suno-API fake', () => {
  let suno: FakeSuno;
  beforeAll(async () => {
    suno = await startFakeSuno({ secret: 'tok', stepMs: 10 });
  });
  afterAll(() => suno.close());

  const call = async (path: string, body?: unknown, token = 'tok') => {
    const res = await fetch(`${suno.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Envelope };
  };

  it('refuses a wrong secret in its envelope', async () => {
    expect(await call('/suno/submit/music', { prompt: 'x' }, 'bad')).toEqual({ status: 401, body: { code: 'invalid_request', message: 'unauthorized secret token', data: null } });
  });

  it('runs music through the clip states and answers fetch with only known ids', async () => {
    const sub = await call('/suno/submit/MuSiC', { gpt_description_prompt: 'jazz' });
    const id = sub.body.data as string;
    for (let i = 0; i < 50 && suno.tasks.get(id)?.status !== 'SUCCESS'; i++) await new Promise((r) => setTimeout(r, 10));
    const one = await call(`/suno/fetch/${id}`);
    expect(one.body.data).toMatchObject({ task_id: id, action: 'MUSIC', status: 'SUCCESS' });
    expect((one.body.data as { progress?: unknown }).progress).toBeUndefined();
    const many = await call('/suno/fetch', { ids: [id, 'nope'] });
    expect((many.body.data as Array<{ task_id: string }>).map((t) => t.task_id)).toEqual([id]);
    expect(await call('/suno/fetch/nope')).toMatchObject({ status: 400, body: { message: 'task not exist' } });
  });

  it('finishes lyrics at submit, refuses unknown actions and fails a music task with a reason', async () => {
    const lyrics = await call('/suno/submit/lyrics', { prompt: 'rain' });
    expect(suno.tasks.get(lyrics.body.data as string)?.status).toBe('SUCCESS');
    expect(await call('/suno/submit/video', { prompt: 'x' })).toMatchObject({ status: 400, body: { message: 'invalid action' } });
    const bad = await call('/suno/submit/music', { prompt: 'explode' });
    for (let i = 0; i < 50 && suno.tasks.get(bad.body.data as string)?.status !== 'FAILURE'; i++) await new Promise((r) => setTimeout(r, 10));
    expect(suno.tasks.get(bad.body.data as string)).toMatchObject({ status: 'FAILURE', fail_reason: 'Unable to generate audio' });
  });
});
