import { providerFixture } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { volcSign } from './sign.js';
import { jimengError, jimengReqKey, jimengStatus, jimengVideoProvider as jimeng } from './video.js';
import type { JimengEnvelope, JimengResult } from './wire-types.js';

const env = (name: string) => providerFixture('jimeng', name).body as JimengEnvelope<JimengResult>;
const status = (name: string) => jimengStatus(env(name).code, env(name).message, env(name).data);

describe('Jimeng video provider', () => {
  it('reads the documented results; the output risk review is a content-policy refusal', () => {
    expect(status('result.generating.response')).toEqual({ state: 'in_progress' });
    expect(status('result.done.response')).toMatchObject({ state: 'success', url: expect.stringContaining('.mp4') });
    expect(status('result.risk.response')).toEqual({ state: 'failure', error: { code: '50511', message: 'Post Img Risk Not Pass', moderation: true } });
    expect(jimengError({ status: 400, json: providerFixture('jimeng', 'error.text-risk').body, text: '' })).toMatchObject({ code: '50412', moderation: true });
  });

  it('names the request key by images: first frame, first and last frame, the 1080P keys', () => {
    expect(jimengReqKey('jimeng_t2v_v30', 0)).toBe('jimeng_t2v_v30');
    expect(jimengReqKey('jimeng_t2v_v30', 1)).toBe('jimeng_i2v_first_v30');
    expect(jimengReqKey('jimeng_t2v_v30_1080p', 2)).toBe('jimeng_i2v_first_tail_v30_1080');
    expect(jimengReqKey('jimeng_vgfm_t2v_l20', 1)).toBe('jimeng_vgfm_t2v_l20');
  });

  it('signs as Volcengine documents: the scope, the signed headers, a deterministic signature', () => {
    const h = volcSign({ accessKeyId: 'AK', secretAccessKey: 'SK' }, { method: 'POST', url: 'https://visual.volcengineapi.com/?Version=2022-08-31&Action=CVSync2AsyncSubmitTask', contentType: 'application/json', body: '{}' }, { region: 'cn-north-1', service: 'cv' }, new Date('2025-01-02T03:04:05Z'));
    expect(h['x-date']).toBe('20250102T030405Z');
    expect(h['x-content-sha256']).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
    expect(h.authorization).toMatch(/^HMAC-SHA256 Credential=AK\/20250102\/cn-north-1\/cv\/request, SignedHeaders=content-type;host;x-content-sha256;x-date, Signature=[0-9a-f]{64}$/);
    const again = volcSign({ accessKeyId: 'AK', secretAccessKey: 'SK' }, { method: 'POST', url: 'https://visual.volcengineapi.com/?Action=CVSync2AsyncSubmitTask&Version=2022-08-31', contentType: 'application/json', body: '{}' }, { region: 'cn-north-1', service: 'cv' }, new Date('2025-01-02T03:04:05Z'));
    // The query is canonical (sorted), whatever order the URL wrote it in.
    expect(again.authorization).toBe(h.authorization);
  });

  it('plans 5 or 10 s (121 or 241 frames) for Jimeng 3.0', () => {
    const req = { model: 'm', upstreamModel: 'jimeng_t2v_v30_1080p', prompt: 'p', images: [], extras: {}, seconds: 10 };
    expect(jimeng.plan(req)).toEqual({ seconds: 10, size: '1920x1080', resolution: '1080p' });
  });
});
