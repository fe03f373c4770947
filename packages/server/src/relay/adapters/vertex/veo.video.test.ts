import { providerFixture } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { veoBody, veoPlan, vertexOperationStatus } from '../gemini/formats/veo/index.js';
import type { VertexVideoOperation } from '../gemini/formats/veo/wire-types.js';

const op = (name: string) => providerFixture('vertex', name).body as VertexVideoOperation;

describe('Veo on Vertex AI', () => {
  it('reads the documented operations: the bytes kept out of the status, responsible-AI filtering', () => {
    expect(vertexOperationStatus({ name: op('veo-submit.response').name })).toEqual({ state: 'in_progress' });
    expect(vertexOperationStatus(op('veo-operation.done.response'))).toEqual({ state: 'success' });
    expect(vertexOperationStatus(op('veo-operation.filtered.response'))).toMatchObject({ state: 'failure', error: { code: 'rai_media_filtered', moderation: true, message: expect.stringContaining('Responsible AI') } });
  });

  it('writes the documented request, the seed included', async () => {
    const req = { model: 'veo-3.0-generate-001', upstreamModel: 'veo-3.0-generate-001', prompt: 'A fast-tracking shot through a bustling dystopian sprawl', images: [], seed: 42, size: '1920x1080', extras: {} };
    const body = await veoBody(req, veoPlan(req), { imageBytes: async () => ({ mimeType: '', base64: '' }) }, true);
    expect(body).toEqual(providerFixture('vertex', 'veo-submit.request').body);
  });
});
