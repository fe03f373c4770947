import { VIDEO_CHANNEL_TYPES } from '@modelgate/shared';
import { describe, expect, it } from 'vitest';
import { taskAdapterFor } from '../adapters/task-registry.js';
import { videoTaskAdapter } from './video-kind.js';
import { loadVideoProviders, videoFolders, videoTypes } from './video-registry.js';

describe('video providers register themselves', () => {
  it('every channel type the catalogue says makes videos has one provider, found without a list', async () => {
    const providers = await loadVideoProviders();
    expect(videoTypes()).toEqual([...VIDEO_CHANNEL_TYPES].sort((a, b) => a - b));
    for (const t of VIDEO_CHANNEL_TYPES) expect(providers.get(t), `type ${t}`).toBeDefined();
    expect(videoFolders()).toEqual(['gemini', 'hailuo', 'jimeng', 'kling', 'seedance', 'sora', 'vertex', 'vidu', 'wan']);
  });

  it('the video task kind polls exactly those types', () => {
    expect(videoTaskAdapter.types).toEqual(VIDEO_CHANNEL_TYPES);
    for (const t of VIDEO_CHANNEL_TYPES) expect(taskAdapterFor(t)).toBe(videoTaskAdapter);
  });
});
