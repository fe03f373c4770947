import { RequestError, invalidRequest, missingParam, type RequestContext } from './context.js';
import { FAKE_PNG } from './images.js';
import type { MultipartFile } from './multipart.js';
import { sendJson } from './respond.js';
import { nowSeconds } from './util.js';

/**
 * `POST /v1/images/edits` and `/v1/images/variations` as OpenAI documents them: multipart/form-data
 * with the image file(s) (`image`, or `image[]` for several), an optional `mask`, and text fields.
 * dall-e-2 (the default) takes a square PNG under 4 MB; variations are dall-e-2 only.
 */
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const DALLE2_MAX_BYTES = 4 * 1024 * 1024;
const NOT_MULTIPART = (type: string): string =>
  `Invalid Content-Type header (${type}), expected multipart/form-data. (HINT: If you're using curl, you can pass -H 'Content-Type: multipart/form-data')`;

function isPng(f: MultipartFile): boolean {
  return f.data.subarray(0, 8).equals(PNG_MAGIC);
}

function checkDalle2File(f: MultipartFile, param: string): void {
  if (!isPng(f) || f.data.length >= DALLE2_MAX_BYTES) throw invalidRequest('Uploaded image must be a PNG and less than 4 MB.', param, 'invalid_image');
}

function formOf(ctx: RequestContext) {
  const form = ctx.multipart;
  if (!form) throw invalidRequest(NOT_MULTIPART(String(ctx.req.headers['content-type'] ?? 'none')), null, null);
  const images = form.files.filter((f) => f.field === 'image' || f.field === 'image[]');
  if (images.length === 0) throw missingParam('image');
  const n = form.fields.n === undefined ? 1 : Number(form.fields.n);
  if (!Number.isInteger(n) || n < 1 || n > 10) throw invalidRequest(`${form.fields.n} is not a valid value for 'n'.`, 'n', 'invalid_value');
  return { form, images, n, model: form.fields.model || 'dall-e-2' };
}

async function answer(ctx: RequestContext, model: string, n: number, responseFormat: string | undefined, promptWords: number): Promise<void> {
  // gpt-image models always answer in base64 and report token usage.
  const gptImage = model.startsWith('gpt-image');
  const b64 = gptImage || responseFormat === 'b64_json';
  const data = Array.from({ length: n }, (_, i) => (b64 ? { b64_json: FAKE_PNG.toString('base64') } : { url: `${ctx.state.origin}/fake-files/image-${i}.png` }));
  const reply: Record<string, unknown> = { created: nowSeconds(), data };
  if (gptImage && !ctx.fault?.omitUsage) {
    reply.usage = { input_tokens: promptWords + 65, output_tokens: 272 * n, total_tokens: promptWords + 65 + 272 * n, input_tokens_details: { text_tokens: promptWords, image_tokens: 65 } };
  }
  await sendJson(ctx, reply);
}

export async function handleImageEdits(ctx: RequestContext): Promise<void> {
  const { form, images, n, model } = formOf(ctx);
  const prompt = form.fields.prompt;
  if (!prompt) throw missingParam('prompt');
  const mask = form.files.find((f) => f.field === 'mask');
  if (model === 'dall-e-2') {
    if (images.length > 1) throw invalidRequest('dall-e-2 edits take exactly one image.', 'image', 'invalid_value');
    checkDalle2File(images[0]!, 'image');
    if (mask) checkDalle2File(mask, 'mask');
  } else if (images.length > 16) {
    throw invalidRequest('At most 16 images may be edited at once.', 'image', 'invalid_value');
  }
  await answer(ctx, model, n, form.fields.response_format, prompt.trim().split(/\s+/u).filter(Boolean).length);
}

export async function handleImageVariations(ctx: RequestContext): Promise<void> {
  const { form, images, n, model } = formOf(ctx);
  if (model !== 'dall-e-2') {
    throw new RequestError(400, { message: `Invalid value for 'model' = ${model}. Only dall-e-2 supports variations.`, type: 'invalid_request_error', param: 'model', code: 'invalid_value' });
  }
  if (images.length > 1) throw invalidRequest('Variations take exactly one image.', 'image', 'invalid_value');
  checkDalle2File(images[0]!, 'image');
  await answer(ctx, model, n, form.fields.response_format, 0);
}
