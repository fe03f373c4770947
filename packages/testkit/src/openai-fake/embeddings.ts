import { createHash } from 'node:crypto';
import { invalidRequest, missingParam, type RequestContext } from './context.js';
import { sendJson } from './respond.js';
import { inputTokens } from './usage.js';
import { isRecord } from './util.js';

/** Vector size when the request does not ask for `dimensions`: small, so tests stay fast. */
export const FAKE_EMBEDDING_DIMENSIONS = 8;

/**
 * A deterministic unit-free vector for an input: bytes of SHA-256(input) mapped to [-1, 1), so
 * equal inputs embed equally and tests can recompute it with `fakeEmbedding`.
 */
export function fakeEmbedding(input: string, dimensions = FAKE_EMBEDDING_DIMENSIONS): number[] {
  const vector: number[] = [];
  let block = 0;
  while (vector.length < dimensions) {
    const digest = createHash('sha256').update(`${block}:${input}`).digest();
    for (const byte of digest) {
      if (vector.length === dimensions) break;
      // Values exactly representable as float32, so base64 round-trips compare equal.
      vector.push((byte - 128) / 128);
    }
    block += 1;
  }
  return vector;
}

function inputsOf(input: unknown): string[] {
  if (typeof input === 'string') return [input];
  if (!Array.isArray(input) || input.length === 0) return [];
  // A flat number array is one tokenised input; an array of them is several.
  if (input.every((item) => typeof item === 'number')) return [JSON.stringify(input)];
  return input.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)));
}

function toBase64(vector: number[]): string {
  const floats = Float32Array.from(vector);
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64');
}

export async function handleEmbeddings(ctx: RequestContext): Promise<void> {
  const body = ctx.body;
  if (!isRecord(body) || typeof body.model !== 'string') throw missingParam('model');
  const inputs = inputsOf(body.input);
  if (inputs.length === 0) throw missingParam('input');
  const dimensions = typeof body.dimensions === 'number' && body.dimensions > 0 ? Math.floor(body.dimensions) : FAKE_EMBEDDING_DIMENSIONS;
  const format = body.encoding_format ?? 'float';
  if (format !== 'float' && format !== 'base64') {
    throw invalidRequest(`'${String(format)}' is not one of ['float', 'base64'] - 'encoding_format'`, 'encoding_format', 'invalid_value');
  }
  const tokens = inputTokens(body.input);
  const reply: Record<string, unknown> = {
    object: 'list',
    data: inputs.map((text, index) => {
      const vector = fakeEmbedding(text, dimensions);
      return { object: 'embedding', index, embedding: format === 'base64' ? toBase64(vector) : vector };
    }),
    model: body.model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
  if (ctx.fault?.omitUsage) delete reply.usage;
  await sendJson(ctx, reply);
}
