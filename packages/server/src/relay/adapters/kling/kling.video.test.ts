import { createHmac } from 'node:crypto';
import { providerFixture } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { VideoInputError } from '../../video/video-types.js';
import { klingToken } from './jwt.js';
import { klingError, klingStatus, klingVideoProvider as kling } from './video.js';
import type { KlingEnvelope, KlingTask } from './wire-types.js';

const task = (name: string) => (providerFixture('kling', name).body as KlingEnvelope<KlingTask>).data!;
const req = (over = {}) => ({ model: 'kling-v1', upstreamModel: 'kling-v1', prompt: 'p', images: [], extras: {}, ...over });

describe('Kling video provider', () => {
  it('reads the documented task states; the result URL lasts 30 days from the update', () => {
    expect(klingStatus(task('submit.response'))).toEqual({ state: 'queued' });
    expect(klingStatus(task('query.processing.response'))).toEqual({ state: 'in_progress' });
    expect(klingStatus(task('query.succeed.response'))).toEqual({ state: 'success', url: expect.stringMatching(/^https:\/\/cdn\.klingai\.com\/.+\.mp4$/), expiresAt: 1722769652 + 30 * 86_400 });
    expect(klingStatus(task('query.failed.response'))).toEqual({ state: 'failure', error: { code: 'failed', message: 'Generation failed, please try again later' } });
  });

  it('tells the content security refusal (1301) from other errors', () => {
    const f = providerFixture('kling', 'error.content-security');
    expect(klingError({ status: f.status!, json: f.body, text: '' })).toMatchObject({ status: 400, code: '1301', moderation: true });
    expect(klingError({ status: 429, json: { code: 1302, message: 'rate limit' }, text: '' })).toMatchObject({ status: 429, moderation: false });
  });

  it('signs an HS256 JWT from AccessKey|SecretKey: issuer, 30 minutes, 5 seconds back', () => {
    const token = klingToken('AKtest|SKtest', 1_700_000_000)!;
    const [h, p, s] = token.split('.');
    expect(JSON.parse(Buffer.from(h!, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(JSON.parse(Buffer.from(p!, 'base64url').toString())).toEqual({ iss: 'AKtest', exp: 1_700_001_800, nbf: 1_699_999_995 });
    expect(s).toBe(createHmac('sha256', 'SKtest').update(`${h}.${p}`).digest('base64url'));
    expect(klingToken('no-separator')).toBeUndefined();
  });

  it('plans 5 or 10 s; the tier picks the mode (720p standard, 1080p professional)', () => {
    expect(kling.plan(req())).toEqual({ seconds: 5, size: '1280x720', resolution: '720p' });
    expect(kling.plan(req({ seconds: 10, size: '1080p' }))).toEqual({ seconds: 10, size: '1920x1080', resolution: '1080p' });
    expect(() => kling.plan(req({ seconds: 8 }))).toThrow(VideoInputError);
  });
});
