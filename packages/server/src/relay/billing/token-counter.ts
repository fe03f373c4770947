/**
 * Local token counting (reference §3.5) with gpt-tokenizer, used only when the upstream reports
 * no usage. o200k for gpt-4o / chatgpt-4o / o1 / o3 models, cl100k for everything else. The
 * encoders are loaded on first use: most requests never need them.
 */
type Counter = (text: string) => number;

let cl100k: Counter | undefined;
let o200k: Counter | undefined;

async function counterFor(model: string): Promise<Counter> {
  if (/^(gpt-4o|chatgpt-4o|o1|o3|gpt-4\.1)/.test(model)) {
    if (!o200k) o200k = (await import('gpt-tokenizer/encoding/o200k_base')).countTokens;
    return o200k;
  }
  if (!cl100k) cl100k = (await import('gpt-tokenizer/encoding/cl100k_base')).countTokens;
  return cl100k;
}

export async function countText(model: string, text: string): Promise<number> {
  if (!text) return 0;
  return (await counterFor(model))(text);
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
  const count = await counterFor(model);
  let total = 3;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (const m of messages) {
    if (!m || typeof m !== 'object') continue;
    const msg = m as Record<string, unknown>;
    total += 3;
    if (typeof msg.role === 'string') total += count(msg.role);
    const c = partText(msg.content);
    total += count(c.text) + c.images * 85 + c.audio * 100;
    if (typeof msg.name === 'string') total += 1 + count(msg.name);
    if (Array.isArray(msg.tool_calls)) total += count(JSON.stringify(msg.tool_calls));
  }
  if (Array.isArray(body.tools) && body.tools.length) total += count(JSON.stringify(body.tools)) + 8;
  return total;
}

/** Tokens of an `input` / `prompt` value (string, string[], token ids). */
export async function countInput(model: string, input: unknown): Promise<number> {
  if (typeof input === 'string') return countText(model, input);
  if (!Array.isArray(input)) return 0;
  if (input.every((v) => typeof v === 'number')) return input.length;
  let total = 0;
  for (const item of input) total += await countInput(model, item);
  return total;
}
