import { providerFixture } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { viduError, viduStatus, viduVideoProvider as vidu } from './video.js';
import type { ViduCreations } from './wire-types.js';

const creations = (name: string) => providerFixture('vidu', name).body as ViduCreations;

describe('Vidu video provider', () => {
  it('reads the documented creation states; its audit’s refusal is a content-policy one', () => {
    expect(viduStatus(creations('creations.processing.response'))).toEqual({ state: 'in_progress' });
    expect(viduStatus(creations('creations.success.response'))).toMatchObject({ state: 'success', url: expect.stringContaining('video.mp4') });
    expect(viduStatus(creations('creations.failed.response'))).toEqual({ state: 'failure', error: { code: 'InternalServiceFailure', message: 'InternalServiceFailure' } });
    expect(viduStatus(creations('creations.audit.response'))).toMatchObject({ state: 'failure', error: { moderation: true } });
  });

  it('reads its error body', () => {
    expect(viduError({ status: 401, json: providerFixture('vidu', 'error.unauthorized').body, text: '' })).toMatchObject({ status: 401, code: 'UnAuthorized', moderation: false });
  });

  it('plans Q1 at 5 s 1080p and 2.0 at 4 or 8 s', () => {
    const req = { model: 'm', upstreamModel: 'viduq1', prompt: 'p', images: [], extras: {} };
    expect(vidu.plan(req)).toEqual({ seconds: 5, size: '1920x1080', resolution: '1080p' });
    expect(vidu.plan({ ...req, upstreamModel: 'vidu2.0', seconds: 8, size: '360p' })).toEqual({ seconds: 8, size: '640x360', resolution: '360p' });
  });
});
