import { providerFixture } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { VideoInputError } from '../../video/video-types.js';
import { baseRespError, hailuoStatus, hailuoVideoProvider as hailuo } from './video.js';
import type { HailuoQueryReply } from './wire-types.js';

const query = (name: string) => providerFixture('hailuo', name).body as HailuoQueryReply;
const req = (over = {}) => ({ model: 'm', upstreamModel: 'MiniMax-Hailuo-02', prompt: 'p', images: [], extras: {}, ...over });

describe('Hailuo video provider', () => {
  it('reads the documented query states', () => {
    expect(hailuoStatus(query('query.processing.response'))).toEqual({ state: 'in_progress' });
    expect(hailuoStatus(query('query.success.response'))).toEqual({ state: 'success' });
    expect(hailuoStatus(query('query.fail.response'))).toEqual({ state: 'failure', error: { code: '1000', message: 'unknown error' } });
  });

  it('reads errors from base_resp under HTTP 200: 1026 is the content review', () => {
    expect(baseRespError({ status: 200, json: providerFixture('hailuo', 'create.response').body, text: '' })).toBeUndefined();
    expect(baseRespError({ status: 200, json: providerFixture('hailuo', 'error.sensitive').body, text: '' })).toMatchObject({ status: 400, code: '1026', moderation: true });
    expect(baseRespError({ status: 200, json: { base_resp: { status_code: 1004, status_msg: 'login fail' } }, text: '' })).toMatchObject({ status: 401 });
  });

  it('plans 6 or 10 s at 768P, only 6 s at 1080P; the first generation 6 s at 720P', () => {
    expect(hailuo.plan(req())).toEqual({ seconds: 6, size: '1366x768', resolution: '768p' });
    expect(hailuo.plan(req({ seconds: 6, size: '1080p' }))).toEqual({ seconds: 6, size: '1920x1080', resolution: '1080p' });
    expect(() => hailuo.plan(req({ seconds: 10, size: '1920x1080' }))).toThrow(VideoInputError);
    expect(hailuo.plan(req({ upstreamModel: 'T2V-01' }))).toEqual({ seconds: 6, size: '1280x720', resolution: '720p' });
  });
});
