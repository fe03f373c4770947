import { providerFixture } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { VideoInputError } from '../../video/video-types.js';
import { soraError, soraStatus, soraVideoProvider as sora } from './video.js';

/** OpenAI's documented Videos answers read by the Sora provider, without a server. */
const body = (name: string) => providerFixture('sora', name).body as Record<string, unknown>;
const req = (over: Partial<Parameters<typeof sora.plan>[0]> = {}) => ({ model: 'sora-2', upstreamModel: 'sora-2', prompt: 'cat', images: [], extras: {}, ...over });

describe('Sora video provider', () => {
  it('reads each documented job state', () => {
    expect(soraStatus(body('create.response'))).toEqual({ state: 'queued', progress: 0 });
    expect(soraStatus(body('retrieve.in-progress.response'))).toEqual({ state: 'in_progress', progress: 33 });
    expect(soraStatus(body('retrieve.completed.response'))).toEqual({ state: 'success', progress: 100, expiresAt: 1712784112 });
    expect(soraStatus(body('retrieve.failed.response'))).toEqual({ state: 'failure', error: { code: 'video_generation_failed', message: 'Video generation failed. Please try again.' } });
  });

  it('tells a moderation refusal from other errors', () => {
    const f = providerFixture('sora', 'error.moderation');
    const e = soraError({ status: f.status!, json: f.body, text: JSON.stringify(f.body) });
    expect([e.status, e.code, e.moderation]).toEqual([400, 'moderation_blocked', true]);
    expect(soraError({ status: 502, json: null, text: '<html>bad gateway</html>' })).toMatchObject({ status: 502, code: 'bad_response', moderation: false });
  });

  it('plans Sora’s durations and sizes, refusing others', () => {
    expect(sora.plan(req())).toEqual({ seconds: 4, size: '720x1280', resolution: '720p' });
    expect(sora.plan(req({ seconds: 12, size: '1280*720' }))).toEqual({ seconds: 12, size: '1280x720', resolution: '720p' });
    expect(sora.plan(req({ upstreamModel: 'sora-2-pro', size: '1792x1024' }))).toMatchObject({ resolution: '1024p' });
    expect(() => sora.plan(req({ seconds: 5 }))).toThrow(VideoInputError);
    expect(() => sora.plan(req({ size: '1792x1024' }))).toThrow(/720x1280, 1280x720/);
    expect(() => sora.plan(req({ images: ['https://a/1.png', 'https://a/2.png'] }))).toThrow(VideoInputError);
  });
});
