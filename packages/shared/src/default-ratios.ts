/**
 * Default pricing tables (reference §5.2). Model ratio 1 = $0.002 per 1K tokens = 1 quota per token;
 * RMB-priced models are written as price × 500 / 7.3. ModelPrice is dollars per call.
 */
const RMB = 500 / 7.3 / 1000;

export const DEFAULT_MODEL_RATIO: Record<string, number> = {
  'gpt-4': 15,
  'gpt-4-0613': 15,
  'gpt-4-32k': 30,
  'gpt-4-turbo': 5,
  'gpt-4-turbo-2024-04-09': 5,
  'gpt-4-1106-preview': 5,
  'gpt-4-0125-preview': 5,
  'gpt-4o': 1.25,
  'gpt-4o-2024-05-13': 2.5,
  'gpt-4o-2024-08-06': 1.25,
  'gpt-4o-2024-11-20': 1.25,
  'chatgpt-4o-latest': 2.5,
  'gpt-4o-mini': 0.075,
  'gpt-4o-mini-2024-07-18': 0.075,
  'gpt-4o-audio-preview': 1.25,
  'gpt-4o-realtime-preview': 2.5,
  o1: 7.5,
  'o1-2024-12-17': 7.5,
  'o1-preview': 7.5,
  'o1-mini': 1.5,
  'gpt-3.5-turbo': 0.25,
  'gpt-3.5-turbo-0125': 0.25,
  'gpt-3.5-turbo-1106': 0.5,
  'gpt-3.5-turbo-16k': 1.5,
  'gpt-3.5-turbo-instruct': 0.75,
  'text-embedding-3-small': 0.01,
  'text-embedding-3-large': 0.065,
  'text-embedding-ada-002': 0.05,
  'text-moderation-latest': 0.1,
  'text-moderation-stable': 0.1,
  'omni-moderation-latest': 0.1,
  'dall-e-2': 8,
  'dall-e-3': 20,
  'whisper-1': 15,
  'tts-1': 7.5,
  'tts-1-hd': 15,
  'tts-1-1106': 7.5,
  'tts-1-hd-1106': 15,
  'claude-instant-1': 0.4,
  'claude-2.0': 4,
  'claude-2.1': 4,
  'claude-3-haiku-20240307': 0.125,
  'claude-3-5-haiku-20241022': 0.5,
  'claude-3-sonnet-20240229': 1.5,
  'claude-3-5-sonnet-20240620': 1.5,
  'claude-3-5-sonnet-20241022': 1.5,
  'claude-3-opus-20240229': 7.5,
  'claude-instant-1.2': 0.4,
  'claude-3-7-sonnet-20250219': 1.5,
  'claude-sonnet-4-20250514': 1.5,
  'claude-opus-4-20250514': 7.5,
  'gemini-pro': 1,
  'gemini-1.5-pro-latest': 1.75,
  'gemini-1.5-flash-latest': 0.0375,
  'gemini-2.0-flash-exp': 0.0375,
  'command-r': 0.25,
  'command-r-plus': 1.5,
  'command-a-03-2025': 1.25,
  'command-r-plus-08-2024': 1.25,
  'command-r-08-2024': 0.075,
  'command-r7b-12-2024': 0.01875,
  'embed-v4.0': 0.06,
  'embed-english-v3.0': 0.05,
  'embed-multilingual-v3.0': 0.05,
  'rerank-v3.5': 0.05,
  'rerank-english-v3.0': 0.05,
  'rerank-multilingual-v3.0': 0.05,
  'deepseek-chat': 0.07,
  'deepseek-coder': 0.07,
  'moonshot-v1-8k': 12 * RMB,
  'moonshot-v1-32k': 24 * RMB,
  'moonshot-v1-128k': 60 * RMB,
  'glm-4': 100 * RMB,
  'glm-4-flash': 0,
  'glm-4v': 50 * RMB,
  'qwen-turbo': 0.8572,
  'qwen-plus': 10,
  'qwen-max': 20 * RMB,
  'ERNIE-4.0-8K': 0.12 * 1000 * RMB,
  'ERNIE-3.5-8K': 0.012 * 1000 * RMB,
  'ERNIE-Speed-8K': 0,
  'SparkDesk-v3.5': 1.2858,
  'yi-large': 20 * RMB,
  'yi-lightning': 0.99 * RMB,
  'hunyuan-lite': 0,
  'hunyuan-standard': 4.5 * RMB,
  'mistral-tiny': 0.125,
  'mistral-small-latest': 1,
  'mistral-large-latest': 4,
  'open-mistral-7b': 0.125,
  'abab6.5s-chat': 1 * RMB,
  'llama3-8b-8192': 0.025,
  'llama3-70b-8192': 0.295,
  '360GPT_S2_V9': 0.8572,
  'jina-reranker-v2-base-multilingual': 0.01,
  'jina-reranker-m0': 0.01,
  'jina-colbert-v2': 0.01,
  'jina-embeddings-v3': 0.01,
  'jina-embeddings-v2-base-en': 0.01,
  'jina-clip-v2': 0.01,
  'BAAI/bge-reranker-v2-m3': 0.01,
  // Cloudflare Workers AI list prices ($ per 1M input tokens ÷ 2).
  '@cf/meta/llama-3.1-8b-instruct': 0.141,
  '@cf/meta/llama-3.3-70b-instruct-fp8-fast': 0.1465,
  '@cf/meta/llama-3.2-3b-instruct': 0.0255,
  '@cf/mistral/mistral-7b-instruct-v0.1': 0.055,
  '@cf/qwen/qwen1.5-14b-chat-awq': 0.1,
  '@cf/google/gemma-7b-it-lora': 0.1,
  '@cf/deepseek-ai/deepseek-r1-distill-qwen-32b': 0.25,
  '@cf/baai/bge-base-en-v1.5': 0.0335,
  '@cf/baai/bge-large-en-v1.5': 0.102,
  '@cf/baai/bge-m3': 0.006,
};

export const DEFAULT_MODEL_PRICE: Record<string, number> = {
  suno_music: 0.1,
  suno_lyrics: 0.01,
  'dall-e-3': 0.04,
  'gpt-4-gizmo-*': 0.1,
  mj_imagine: 0.1,
  mj_variation: 0.1,
  mj_reroll: 0.1,
  mj_blend: 0.1,
  mj_modal: 0.1,
  mj_zoom: 0.1,
  mj_shorten: 0.1,
  mj_high_variation: 0.1,
  mj_low_variation: 0.1,
  mj_pan: 0.1,
  mj_inpaint: 0,
  mj_custom_zoom: 0,
  mj_describe: 0.05,
  mj_upscale: 0.05,
  swap_face: 0.05,
  mj_upload: 0.05,
};

/** The option-level completion ratios; prefix rules in the pricing code take precedence (reference §5.1). */
export const DEFAULT_COMPLETION_RATIO: Record<string, number> = {
  'gpt-4-gizmo-*': 2,
  'gpt-4o-gizmo-*': 3,
  'gpt-4-all': 2,
};

/**
 * Prompt-cache discounts (share of the input price a cached token costs), by model prefix. The
 * reference added these in 2025 (§15); cached tokens are billed only when the upstream reports them.
 */
export const DEFAULT_CACHE_RATIO_RULES: ReadonlyArray<readonly [prefix: string, ratio: number]> = [
  ['gpt-4o', 0.5],
  ['chatgpt-4o', 0.5],
  ['o1', 0.5],
  ['o3', 0.5],
  ['gpt-4.1', 0.25],
  ['deepseek', 0.25],
  // Every Claude model with prompt caching (3.x, 4.x) reads the cache at a tenth of the input price.
  ['claude', 0.1],
  // Gemini bills context-cache hits (`cachedContentTokenCount`) at a quarter of the input price.
  ['gemini', 0.25],
];

/**
 * Prompt-cache writes (share of the input price a token written to the cache costs), by model
 * prefix: Anthropic bills `cache_creation_input_tokens` at 1.25 × input (5-minute cache).
 */
export const DEFAULT_CACHE_CREATION_RATIO_RULES: ReadonlyArray<readonly [prefix: string, ratio: number]> = [['claude', 1.25]];

/** Ratio of a model missing from ModelRatio (reference §5.1: billed, not rejected). */
export const MISSING_MODEL_RATIO = 30;

/** Audio token ratios relative to text tokens (reference §5.1). */
export const AUDIO_COMPLETION_RATIO = 2;
export function defaultAudioRatio(model: string): number {
  return model.startsWith('gpt-4o-audio') ? 40 : 20;
}
