import { describe, expect, it } from 'vitest';
import { FAKE_MP4, newControls, newJob, phaseOf, progressOf } from './index.js';

describe('video fake jobs', () => {
  it('move with time: queued one step, running two, then done or failed by the prompt', () => {
    const c = newControls();
    const ok = newJob(c, { model: 'm', prompt: 'calm sea', seconds: 4, size: '720p', body: {} });
    const bad = newJob(c, { model: 'm', prompt: 'explode it', seconds: 4, size: '720p', body: {} });
    const t0 = ok.createdAt;
    expect([phaseOf(ok, 100, t0 + 50), phaseOf(ok, 100, t0 + 150), phaseOf(ok, 100, t0 + 299), phaseOf(ok, 100, t0 + 300)]).toEqual(['queued', 'running', 'running', 'succeeded']);
    expect(phaseOf(bad, 100, bad.createdAt + 300)).toBe('failed');
    expect([progressOf(ok, 100, t0 + 50), progressOf(ok, 100, t0 + 200), progressOf(ok, 100, t0 + 400)]).toEqual([0, 50, 100]);
    ok.forced = 'running';
    expect(phaseOf(ok, 100, t0 + 10_000)).toBe('running');
  });

  it('serve a real MP4 (an ISO-BMFF ftyp box first)', () => {
    expect(FAKE_MP4.subarray(4, 8).toString('latin1')).toBe('ftyp');
  });
});
