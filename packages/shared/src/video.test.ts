import { describe, expect, it } from 'vitest';
import { normaliseOption } from './option-rules.js';
import { DEFAULT_VIDEO_PRICE, openAIVideoStatus, resolutionTier, videoPriceProblem, videoQuota, videoUsdPerSecond } from './video.js';

describe('video prices', () => {
  it('keys sizes and tiers by the short side', () => {
    expect(['1280x720', '720x1280', '1280*720', '720P', '720p', '1280:720'].map(resolutionTier)).toEqual(Array(6).fill('720p'));
    expect(resolutionTier('1792x1024')).toBe('1024p');
    expect([resolutionTier('hd'), resolutionTier('0x0'), resolutionTier('99999x99999')]).toEqual([undefined, undefined, undefined]);
  });

  it('prices a tier, else the model’s `*`, else nothing', () => {
    const table = { a: { '720p': 0.1, '*': 0.3 }, b: { '1080p': 0.2 } };
    expect(videoUsdPerSecond(table, 'a', '720p')).toBe(0.1);
    expect(videoUsdPerSecond(table, 'a', '1080p')).toBe(0.3);
    expect(videoUsdPerSecond(table, 'b', '720p')).toBeUndefined();
    expect(videoUsdPerSecond(table, 'toString', '720p')).toBeUndefined();
    expect(videoQuota({ seconds: 8, resolution: '720p', usdPerSecond: 0.1, groupRatio: 1.5, quotaPerUnit: 500_000 })).toBe(600_000);
  });

  it('the option check names what is wrong', () => {
    expect(videoPriceProblem(DEFAULT_VIDEO_PRICE)).toBeUndefined();
    expect(videoPriceProblem([])).toBe('');
    expect(videoPriceProblem({ m: {} })).toBe('m');
    expect(videoPriceProblem({ m: { hd: 1 } })).toBe('m.hd');
    expect(videoPriceProblem({ m: { '720p': -1 } })).toBe('m.720p');
    expect(normaliseOption('VideoPrice', '{"m":{"720p":"1"}}', () => '')).toEqual({ ok: false, code: 'OPTION_VIDEO_PRICE_INVALID', detail: 'VideoPrice.m.720p' });
    expect(normaliseOption('VideoPrice', '{"sora-2":{"*":0.1}}', () => '')).toMatchObject({ ok: true });
  });

  it('maps the task states onto OpenAI’s video states', () => {
    expect(['SUCCESS', 'FAILURE', 'IN_PROGRESS', 'QUEUED', 'SUBMITTED', ''].map(openAIVideoStatus)).toEqual(['completed', 'failed', 'in_progress', 'queued', 'queued', 'queued']);
  });
});
