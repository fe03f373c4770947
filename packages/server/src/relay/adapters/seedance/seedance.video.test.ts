import { providerFixture, startFakeSeedance } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { arkError, arkStatus, seedanceVideoProvider as seedance } from './video.js';
import type { ArkVideoTask } from './wire-types.js';

const task = (name: string) => providerFixture('seedance', name).body as ArkVideoTask;

describe('Seedance video provider', () => {
  it('reads the documented task states (a video URL for 24 hours)', () => {
    expect(arkStatus(task('task.running.response'))).toEqual({ state: 'in_progress' });
    expect(arkStatus(task('task.succeeded.response'))).toMatchObject({ state: 'success', url: expect.stringContaining('.mp4'), expiresAt: 1743414673 + 86_400 });
    expect(arkStatus(task('task.failed.response'))).toEqual({ state: 'failure', error: { code: 'InternalServiceError', message: 'The service encountered an unexpected internal error.' } });
    expect(arkStatus({ ...task('task.failed.response'), error: { code: 'OutputVideoSensitiveContentDetected', message: 'x' } })).toMatchObject({ error: { moderation: true } });
  });

  it('reads Ark’s sensitive-content refusal as a content-policy refusal', () => {
    const f = providerFixture('seedance', 'error.input-sensitive');
    expect(arkError({ status: 400, json: f.body, text: '' })).toMatchObject({ code: 'InputTextSensitiveContentDetected', moderation: true });
  });

  it('sends the billed length and resolution as fields, and strips the text commands that would override them', async () => {
    const fake = await startFakeSeedance({ key: 'k', stepMs: 10 });
    try {
      const target = { baseUrl: fake.url, key: 'k', id: 1, type: 54, other: '', organization: '', setting: {} };
      const req = { model: 'm', upstreamModel: 'doubao-seedance-1-0-pro-250528', prompt: 'a cat --rs 1080p --dur 10 --camerafixed true', images: [], extras: { duration: 10, resolution: '1080p', watermark: true }, seconds: 5, size: '864x480' };
      const plan = seedance.plan(req);
      expect(plan).toEqual({ seconds: 5, size: '864x480', resolution: '480p' });
      const id = await seedance.submit(target, req, plan, 5000, { imageBytes: async () => ({ mimeType: '', base64: '' }) });
      expect(id).toMatch(/^cgt-/);
      expect(fake.requests.at(-1)!.body).toEqual({
        model: 'doubao-seedance-1-0-pro-250528',
        content: [{ type: 'text', text: 'a cat --camerafixed true' }],
        duration: 5,
        resolution: '480p',
        ratio: '16:9',
        watermark: true,
      });
    } finally {
      await fake.close();
    }
  });
});
