import { createHash } from 'node:crypto';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_PNG } from './images.js';
import { startFakeOpenAI } from './server.js';
import type { FakeOpenAI } from './types.js';

let fake: FakeOpenAI;
let client: OpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKeys: ['sk-test', 'azure-key'] });
  client = new OpenAI({ apiKey: 'sk-test', baseURL: fake.baseURL, maxRetries: 0 });
});
afterAll(() => fake.close());

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function post(path: string, body: FormData | string, headers: Record<string, string> = {}): Promise<{ status: number; error: Record<string, unknown> }> {
  const res = await fetch(`${fake.url}${path}`, { method: 'POST', headers: { authorization: 'Bearer sk-test', ...headers }, body });
  return { status: res.status, error: ((await res.json()) as { error: Record<string, unknown> }).error };
}

describe('images edits and variations (multipart)', () => {
  it('parses the SDK upload and answers like OpenAI; the recorded parts carry their checksums', async () => {
    const res = await client.images.edit({ image: await toFile(FAKE_PNG, 'a.png', { type: 'image/png' }), prompt: 'add a hat', n: 2, response_format: 'b64_json' });
    expect(res.data).toEqual([{ b64_json: FAKE_PNG.toString('base64') }, { b64_json: FAKE_PNG.toString('base64') }]);
    expect(typeof res.created).toBe('number');
    expect(fake.requests.at(-1)!.files).toEqual([{ field: 'image', filename: 'a.png', contentType: 'image/png', size: FAKE_PNG.length, sha256: sha(FAKE_PNG) }]);
    const variation = await client.images.createVariation({ image: await toFile(FAKE_PNG, 'b.png', { type: 'image/png' }) });
    expect(variation.data![0]!.url).toMatch(/\/fake-files\/image-0\.png$/);
  });

  it("answers OpenAI's errors: missing image, missing prompt, not multipart, not a PNG, variations of another model", async () => {
    const noImage = new FormData();
    noImage.set('prompt', 'x');
    expect(await post('/v1/images/edits', noImage)).toMatchObject({ status: 400, error: { code: 'missing_required_parameter', param: 'image', message: "Missing required parameter: 'image'." } });
    const noPrompt = new FormData();
    noPrompt.set('image', new File([FAKE_PNG], 'a.png', { type: 'image/png' }));
    expect(await post('/v1/images/edits', noPrompt)).toMatchObject({ status: 400, error: { param: 'prompt' } });
    const json = await post('/v1/images/edits', JSON.stringify({ prompt: 'x' }), { 'content-type': 'application/json' });
    expect(json.status).toBe(400);
    expect(json.error.message).toMatch(/^Invalid Content-Type header \(application\/json\), expected multipart\/form-data/);
    const jpeg = new FormData();
    jpeg.set('image', new File([Buffer.from('jpeg bytes')], 'a.jpg', { type: 'image/jpeg' }));
    expect(await post('/v1/images/variations', jpeg)).toMatchObject({ status: 400, error: { message: 'Uploaded image must be a PNG and less than 4 MB.', param: 'image' } });
    const other = new FormData();
    other.set('image', new File([FAKE_PNG], 'a.png', { type: 'image/png' }));
    other.set('model', 'gpt-image-1');
    expect(await post('/v1/images/variations', other)).toMatchObject({ status: 400, error: { param: 'model', code: 'invalid_value' } });
  });

  it("serves Azure's deployment path with the api-key header and Azure's own refusals", async () => {
    const form = () => {
      const f = new FormData();
      f.set('image', new File([FAKE_PNG], 'a.png', { type: 'image/png' }));
      f.set('prompt', 'x');
      f.set('model', 'gpt-image-1');
      return f;
    };
    const path = '/openai/deployments/gpt-image-1/images/edits';
    const ok = await fetch(`${fake.url}${path}?api-version=2025-04-01-preview`, { method: 'POST', headers: { 'api-key': 'azure-key' }, body: form() });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { usage: { output_tokens: number } }).usage.output_tokens).toBe(272);
    const badKey = await fetch(`${fake.url}${path}?api-version=2025-04-01-preview`, { method: 'POST', headers: { 'api-key': 'nope' }, body: form() });
    expect(badKey.status).toBe(401);
    expect(((await badKey.json()) as { error: { code: string } }).error.code).toBe('401');
    const noVersion = await fetch(`${fake.url}${path}`, { method: 'POST', headers: { 'api-key': 'azure-key' }, body: form() });
    expect(noVersion.status).toBe(404);
  });
});
