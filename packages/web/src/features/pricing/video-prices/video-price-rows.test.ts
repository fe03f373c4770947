import { describe, expect, it } from 'vitest';
import { isAmountText, rowsFromVideoTable, tierText, videoTableFromRows } from './video-price-rows';

describe('video price rows', () => {
  it('lists one row per model and tier, `*` last, and writes the same table back', () => {
    const table = { 'sora-2-pro': { '*': 0.4, '1024p': 0.5, '720p': 0.3 }, kling: { '1080p': 0.049 } };
    const rows = rowsFromVideoTable(table);
    expect(rows.map((r) => `${r.model} ${r.tier} ${r.usd}`)).toEqual(['kling 1080p 0.049', 'sora-2-pro 720p 0.3', 'sora-2-pro 1024p 0.5', 'sora-2-pro * 0.4']);
    expect(videoTableFromRows(rows)).toEqual(table);
  });

  it('accepts tiers and prices as the server checks them', () => {
    expect([tierText(' 1080P '), tierText('*'), tierText('hd'), tierText('1280x720')]).toEqual(['1080p', '*', undefined, undefined]);
    expect([isAmountText('0.05'), isAmountText('.5'), isAmountText('-1'), isAmountText('1e3'), isAmountText('')]).toEqual([true, true, false, false, false]);
  });
});
