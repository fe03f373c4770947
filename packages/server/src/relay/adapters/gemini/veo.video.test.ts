import { providerFixture } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { VideoInputError } from '../../video/video-types.js';
import { geminiOperationStatus, googleError, veoBody, veoPlan } from './formats/veo/index.js';
import type { GeminiVideoOperation } from './formats/veo/wire-types.js';

const op = (name: string) => providerFixture('gemini', name).body as GeminiVideoOperation;
const io = { imageBytes: async (url: string) => ({ mimeType: 'image/png', base64: url.split(',')[1]! }) };

describe('Veo on the Gemini API', () => {
  it('reads the documented operations: running, the video’s file URI, filtered by responsible AI, failed', () => {
    expect(geminiOperationStatus(op('veo-operation.running.response'))).toEqual({ state: 'in_progress' });
    expect(geminiOperationStatus(op('veo-operation.done.response'))).toEqual({ state: 'success', url: 'https://generativelanguage.googleapis.com/v1beta/files/3k8a1x9qz2pf:download?alt=media' });
    expect(geminiOperationStatus(op('veo-operation.filtered.response'))).toMatchObject({ state: 'failure', error: { code: 'rai_media_filtered', moderation: true } });
    expect(geminiOperationStatus(op('veo-operation.failed.response'))).toMatchObject({ state: 'failure', error: { message: expect.stringContaining('internal error') } });
    expect(googleError({ status: 400, json: { error: { code: 400, message: 'API key not valid.', status: 'INVALID_ARGUMENT' } }, text: '' })).toMatchObject({ code: 'INVALID_ARGUMENT', moderation: false });
  });

  it('writes the documented request; one sample, the image inline; no seed on the Gemini API', async () => {
    const req = { model: 'veo-3.0-generate-001', upstreamModel: 'veo-3.0-generate-001', prompt: 'Panning wide shot of a calico kitten sleeping in the sunshine', images: [], negativePrompt: 'cartoon, drawing, low quality', seed: 3, extras: { parameters: { sampleCount: 4, durationSeconds: 60 } } };
    const plan = veoPlan(req);
    expect(plan).toEqual({ seconds: 8, size: '1280x720', resolution: '720p' });
    expect(await veoBody(req, plan, io, false)).toEqual(providerFixture('gemini', 'veo-submit.request').body);
    const withImage = await veoBody({ ...req, images: ['data:image/png;base64,iVBORw0K'] }, plan, io, false);
    expect(withImage.instances[0]!.image).toEqual({ bytesBase64Encoded: 'iVBORw0K', mimeType: 'image/png' });
    expect(() => veoPlan({ ...req, seconds: 4 })).toThrow(VideoInputError);
    expect(veoPlan({ ...req, upstreamModel: 'veo-3.1-generate-preview', seconds: 4, size: '1080x1920' })).toEqual({ seconds: 4, size: '1080x1920', resolution: '1080p' });
  });
});
