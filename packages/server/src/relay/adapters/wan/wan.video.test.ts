import { providerFixture, startFakeWan } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { VideoInputError } from '../../video/video-types.js';
import { dashscopeError, wanStatus, wanVideoProvider as wan } from './video.js';
import type { WanTaskReply } from './wire-types.js';

const output = (name: string) => (providerFixture('wan', name).body as WanTaskReply).output;
const io = { imageBytes: async () => ({ mimeType: '', base64: '' }) };

describe('Wan video provider', () => {
  it('reads the documented task states', () => {
    expect(wanStatus(output('create.response'))).toEqual({ state: 'queued' });
    expect(wanStatus(output('task.running.response'))).toEqual({ state: 'in_progress' });
    expect(wanStatus(output('task.succeeded.response'))).toMatchObject({ state: 'success', url: expect.stringContaining('.mp4') });
    expect(wanStatus(output('task.failed.response'))).toMatchObject({ state: 'failure', error: { code: 'InternalError' } });
  });

  it('reads DataInspectionFailed as a content-policy refusal', () => {
    expect(dashscopeError({ status: 400, json: providerFixture('wan', 'error.data-inspection').body, text: '' })).toMatchObject({ code: 'DataInspectionFailed', moderation: true });
  });

  it('text to video sends a w*h size, image to video a resolution and img_url; extras never override the billed fields', async () => {
    const fake = await startFakeWan({ key: 'sk-k', stepMs: 10 });
    try {
      const target = { baseUrl: fake.url, key: 'sk-k', id: 1, type: 17, other: '', organization: '', setting: {} };
      const t2v = { model: 'w', upstreamModel: 'wan2.2-t2v-plus', prompt: 'cat', images: [], extras: { parameters: { duration: 10, size: '1920*1080', prompt_extend: false } }, size: '832x480' };
      await wan.submit(target, t2v, wan.plan(t2v), 5000, io);
      expect(fake.requests.at(-1)).toMatchObject({ headers: { 'x-dashscope-async': 'enable' }, body: { model: 'wan2.2-t2v-plus', input: { prompt: 'cat' }, parameters: { duration: 5, size: '832*480', prompt_extend: false } } });
      const i2v = { model: 'w', upstreamModel: 'wan2.2-i2v-plus', prompt: 'cat', images: ['https://img.example/cat.png'], extras: {}, size: '1080p' };
      await wan.submit(target, i2v, wan.plan(i2v), 5000, io);
      expect(fake.requests.at(-1)!.body).toEqual({ model: 'wan2.2-i2v-plus', input: { prompt: 'cat', img_url: 'https://img.example/cat.png' }, parameters: { duration: 5, resolution: '1080P' } });
      expect(() => wan.plan({ ...t2v, seconds: 10 })).toThrow(VideoInputError);
    } finally {
      await fake.close();
    }
  });
});
