/**
 * The providers' documented output limits: the most tokens one call to a model may answer
 * (thinking included). The relay caps a request's max_tokens to the limit of the model it sends
 * upstream, and a reservation covers no more than it (docs/relay-billing.md "Spend limits").
 * Names match by prefix after a vendor or region prefix (Bedrock's `us.anthropic.`) is removed;
 * the first matching row wins, so longer prefixes come first. A model not listed has no limit.
 */
const LIMITS: ReadonlyArray<readonly [prefix: string, tokens: number]> = [
  // Anthropic (platform.claude.com/docs/en/models/*/overview).
  ['claude-opus-4-8', 128_000],
  ['claude-opus-4-7', 128_000],
  ['claude-opus-4-6', 128_000],
  ['claude-opus-4-5', 64_000],
  ['claude-opus-4-1', 32_000],
  ['claude-opus-4', 32_000],
  ['claude-sonnet-4-6', 128_000],
  ['claude-sonnet-4-5', 64_000],
  ['claude-sonnet-4', 64_000],
  ['claude-haiku-4-5', 64_000],
  ['claude-3-7-sonnet', 64_000],
  ['claude-3-5-sonnet', 8_192],
  ['claude-3-5-haiku', 8_192],
  ['claude-3-opus', 4_096],
  ['claude-3-sonnet', 4_096],
  ['claude-3-haiku', 4_096],
  // OpenAI (platform.openai.com/docs/models).
  ['gpt-5-chat', 16_384],
  ['gpt-5', 128_000],
  ['gpt-4.1', 32_768],
  ['gpt-4o-mini', 16_384],
  ['gpt-4o', 16_384],
  ['chatgpt-4o', 16_384],
  ['gpt-4-turbo', 4_096],
  ['gpt-4-1106', 4_096],
  ['gpt-4-0125', 4_096],
  ['gpt-4-32k', 8_192],
  ['gpt-4', 8_192],
  ['gpt-3.5-turbo-instruct', 4_096],
  ['gpt-3.5', 4_096],
  ['o1-preview', 32_768],
  ['o1-mini', 65_536],
  ['o1', 100_000],
  ['o3', 100_000],
  ['o4-mini', 100_000],
  ['text-davinci', 4_096],
  // Google (ai.google.dev/gemini-api/docs/models).
  ['gemini-3', 65_536],
  ['gemini-2.5', 65_536],
  ['gemini-2.0', 8_192],
  ['gemini-1.5', 8_192],
  // DeepSeek (api-docs.deepseek.com/quick_start/pricing).
  ['deepseek-reasoner', 65_536],
  ['deepseek-chat', 8_192],
];

/** Bedrock and Vertex spellings (`us.anthropic.claude-…-v1:0`, `claude-…@20250929`) → the model's name. */
function bareName(model: string): string {
  const m = model.toLowerCase();
  const i = m.lastIndexOf('anthropic.');
  return i >= 0 ? m.slice(i + 'anthropic.'.length) : m;
}

/** The documented output limit of `model`, or undefined when the model is not known. */
export function modelOutputLimit(model: string): number | undefined {
  const name = bareName(model);
  for (const [prefix, tokens] of LIMITS) if (name.startsWith(prefix)) return tokens;
  return undefined;
}
