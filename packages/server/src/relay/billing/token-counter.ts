import { countBounded, estimateTokens, HARD_MAX_CHARS, INLINE_MAX_CHARS, MAX_QUEUED_CHARS } from './token-bounded.js';
import { defaultPoolSize, TokenPool, type EncodingKind } from './token-pool.js';

/**
 * Local token counting (reference §3.5) with gpt-tokenizer, used only when the upstream reports
 * no usage. o200k for gpt-4o / chatgpt-4o / o1 / o3 models, cl100k for everything else. Each
 * count gathers the request's strings first and then, by their total size (token-bounded.ts):
 * counts inline, in the worker pool, or estimates. The encoders are loaded on first use.
 */
type Counter = (text: string) => number;

/** Special-token text (`<|endoftext|>`) counts as ordinary text: gpt-tokenizer would throw on it. */
const OPTIONS = { disallowedSpecial: new Set<string>() };

let cl100k: Counter | undefined;
let o200k: Counter | undefined;

const pool = new TokenPool(defaultPoolSize(), MAX_QUEUED_CHARS);

function kindFor(model: string): EncodingKind {
  return /^(gpt-4o|chatgpt-4o|o1|o3|gpt-4\.1)/.test(model) ? 'o200k' : 'cl100k';
}

async function inlineCounter(kind: EncodingKind): Promise<Counter> {
  if (kind === 'o200k') {
    if (!o200k) {
      const enc = await import('gpt-tokenizer/encoding/o200k_base');
      o200k = (text) => enc.countTokens(text, OPTIONS);
    }
    return o200k;
  }
  if (!cl100k) {
    const enc = await import('gpt-tokenizer/encoding/cl100k_base');
    cl100k = (text) => enc.countTokens(text, OPTIONS);
  }
  return cl100k;
}

/** Sum of the token counts of `texts`, never blocking the event loop for long. */
async function countTexts(model: string, texts: readonly string[]): Promise<number> {
  let chars = 0;
  for (const t of texts) chars += t.length;
  if (chars === 0) return 0;
  const kind = kindFor(model);
  if (chars <= INLINE_MAX_CHARS) {
    const count = await inlineCounter(kind);
    let total = 0;
    for (const t of texts) if (t) total += countBounded(count, t);
    return total;
  }
  if (chars <= HARD_MAX_CHARS) {
    const counted = await pool.count(kind, texts.filter(Boolean), chars);
    if (counted !== undefined) return counted;
  }
  return estimateTokens(texts);
}

/** Every app that relays calls this once, and `releaseTokenCounter` on close (stops the pool last). */
export function retainTokenCounter(): void {
  pool.retain();
}

export function releaseTokenCounter(): Promise<void> {
  return pool.release();
}

export async function countText(model: string, text: string): Promise<number> {
  if (!text) return 0;
  return countTexts(model, [text]);
}

function partText(content: unknown): { text: string; images: number; audio: number } {
  if (typeof content === 'string') return { text: content, images: 0, audio: 0 };
  const out = { text: '', images: 0, audio: 0 };
  if (!Array.isArray(content)) return out;
  for (const part of content) {
    if (!part || typeof part !== 'object') continue;
    const p = part as Record<string, unknown>;
    if (typeof p.text === 'string') out.text += p.text;
    else if (p.type === 'image_url') out.images += 1;
    else if (p.type === 'input_audio') out.audio += 1;
  }
  return out;
}

/**
 * Prompt tokens of a chat request: 3 per message + role + content (+1 + name), +3 per request;
 * images count a flat 85 tokens each (the low-detail price: fetching images to size them is not
 * worth a hot-path download), audio parts 100, tools their JSON text + 8.
 */
export async function countChatPrompt(model: string, body: Record<string, unknown>): Promise<number> {
  let fixed = 3;
  const texts: string[] = [];
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (const m of messages) {
    if (!m || typeof m !== 'object') continue;
    const msg = m as Record<string, unknown>;
    fixed += 3;
    if (typeof msg.role === 'string') texts.push(msg.role);
    const c = partText(msg.content);
    texts.push(c.text);
    fixed += c.images * 85 + c.audio * 100;
    if (typeof msg.name === 'string') {
      fixed += 1;
      texts.push(msg.name);
    }
    if (Array.isArray(msg.tool_calls)) texts.push(JSON.stringify(msg.tool_calls));
  }
  if (Array.isArray(body.tools) && body.tools.length) {
    texts.push(JSON.stringify(body.tools));
    fixed += 8;
  }
  return fixed + (await countTexts(model, texts));
}

/**
 * Collects the strings of an `input` / `prompt` value (string, string[], token ids, arrays of
 * token ids) and returns the tokens given as ids. Deeper nesting than the API allows is ignored.
 */
function collectInput(input: unknown, texts: string[], depth: number): number {
  if (typeof input === 'string') {
    texts.push(input);
    return 0;
  }
  if (!Array.isArray(input) || depth > 2) return 0;
  if (input.every((v) => typeof v === 'number')) return input.length;
  let ids = 0;
  for (const item of input) ids += collectInput(item, texts, depth + 1);
  return ids;
}

/** Tokens of an `input` / `prompt` value (string, string[], token ids). */
export async function countInput(model: string, input: unknown): Promise<number> {
  const texts: string[] = [];
  const ids = collectInput(input, texts, 0);
  return ids + (await countTexts(model, texts));
}
