import { invalidRequest, missingParam, type RequestContext } from './context.js';
import { sendJson, sendPayload } from './respond.js';
import { isRecord, nowSeconds } from './util.js';

/** A valid 1×1 PNG: what every fake image is, inline or behind a URL. */
export const FAKE_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

export async function handleImageGenerations(ctx: RequestContext): Promise<void> {
  const body = ctx.body;
  if (!isRecord(body) || typeof body.prompt !== 'string') throw missingParam('prompt');
  const model = typeof body.model === 'string' ? body.model : 'dall-e-2';
  const n = typeof body.n === 'number' ? body.n : 1;
  if (!Number.isInteger(n) || n < 1 || n > 10) throw invalidRequest(`${String(body.n)} is not a valid value for 'n'.`, 'n', 'invalid_value');
  if (model === 'dall-e-3' && n !== 1) {
    throw invalidRequest(`You requested ${n} images, but dall-e-3 only supports n=1.`, null, 'invalid_value');
  }
  // gpt-image models always answer in base64 and report token usage.
  const gptImage = model.startsWith('gpt-image');
  const b64 = gptImage || body.response_format === 'b64_json';
  const data = Array.from({ length: n }, (_, i) => ({
    ...(b64 ? { b64_json: FAKE_PNG.toString('base64') } : { url: `${ctx.state.origin}/fake-files/image-${i}.png` }),
    ...(model === 'dall-e-3' ? { revised_prompt: body.prompt } : {}),
  }));
  const reply: Record<string, unknown> = { created: nowSeconds(), data };
  if (gptImage && !ctx.fault?.omitUsage) {
    const text = body.prompt.trim().split(/\s+/u).filter(Boolean).length;
    reply.usage = {
      input_tokens: text,
      output_tokens: 272 * n,
      total_tokens: text + 272 * n,
      input_tokens_details: { text_tokens: text, image_tokens: 0 },
    };
  }
  await sendJson(ctx, reply);
}

/** Serves the URLs handed out by url-format image replies. */
export function handleFakeFile(ctx: RequestContext): Promise<void> {
  return sendPayload(ctx, 'image/png', FAKE_PNG);
}
