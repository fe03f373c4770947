/**
 * Default pricing tables (reference §5.2). Model ratio 1 = $0.002 per 1K tokens = 1 quota per token;
 * RMB-priced models are written as price × 500 / 7.3. ModelPrice is dollars per call.
 */
import { CURRENT_COMPLETION_RATIO, CURRENT_MODEL_RATIO } from './default-ratios-current.js';

const RMB = 500 / 7.3 / 1000;

export { DEFAULT_CACHE_RATIO, DEFAULT_CREATE_CACHE_RATIO } from './default-ratios-current.js';

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
  'deepseek-coder': 0.07,
  'moonshot-v1-8k': 12 * RMB,
  'moonshot-v1-32k': 24 * RMB,
  'moonshot-v1-128k': 60 * RMB,
  'glm-4': 100 * RMB,
  'glm-4-flash': 0,
  'glm-4v': 50 * RMB,
  'glm-4-plus': 50 * RMB,
  'glm-4-0520': 100 * RMB,
  'glm-4-air': 1 * RMB,
  'glm-4-airx': 10 * RMB,
  'glm-4-long': 1 * RMB,
  'glm-4v-plus': 10 * RMB,
  'glm-3-turbo': 1 * RMB,
  'embedding-2': 0.5 * RMB,
  'embedding-3': 0.5 * RMB,
  chatglm_turbo: 5 * RMB,
  chatglm_pro: 10 * RMB,
  chatglm_std: 5 * RMB,
  chatglm_lite: 2 * RMB,
  'qwen-max-longcontext': 20 * RMB,
  'qwen-long': 0.5 * RMB,
  'qwen-turbo-internet': 0.8572,
  'qwen-plus-internet': 10,
  'qwen-max-internet': 20 * RMB,
  'text-embedding-v1': 0.7 * RMB,
  'text-embedding-v2': 0.7 * RMB,
  'text-embedding-v3': 0.5 * RMB,
  'ERNIE-4.0-8K': 0.12 * 1000 * RMB,
  'ERNIE-3.5-8K': 0.012 * 1000 * RMB,
  'ERNIE-Speed-8K': 0,
  'ERNIE-4.0-Turbo-8K': 0.03 * 1000 * RMB,
  'ERNIE-3.5-128K': 0.0008 * 1000 * RMB,
  'ERNIE-Speed-128K': 0,
  'ERNIE-Lite-8K': 0,
  'ERNIE-Tiny-8K': 0,
  'Embedding-V1': 0.5 * RMB,
  'bge-large-zh': 0.5 * RMB,
  'bge-large-en': 0.5 * RMB,
  'tao-8k': 0.5 * RMB,
  'SparkDesk-v3.5': 1.2858,
  'yi-large': 20 * RMB,
  'yi-lightning': 0.99 * RMB,
  'hunyuan-lite': 0,
  'hunyuan-standard': 4.5 * RMB,
  'hunyuan-standard-256K': 15 * RMB,
  'hunyuan-pro': 30 * RMB,
  'hunyuan-turbo': 15 * RMB,
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
  // PaLM 2 (decommissioned; old channels only): $0.5 per 1M characters ≈ $1 per 1M tokens ÷ 2.
  'chat-bison-001': 0.5,
  // Dify: the app's own model answers; a GPT-3.5-class ratio until the operator sets one.
  dify: 0.25,
  // Azure deployment names of the OpenAI models above.
  'gpt-35-turbo': 0.25,
  whisper: 15,
  tts: 7.5,
  // Ollama runs on the operator's own hardware: a nominal price until the operator sets one.
  'llama3.1': 0.05,
  'llama3.2': 0.05,
  'qwen2.5': 0.05,
  mistral: 0.05,
  gemma2: 0.05,
  'nomic-embed-text': 0.005,
  'mxbai-embed-large': 0.005,
  'all-minilm': 0.005,
  // Gemini API list prices ($ per 1M input tokens ÷ 2).
  'gemini-2.5-pro': 0.625,
  'gemini-2.5-flash': 0.15,
  'gemini-2.5-flash-lite': 0.05,
  'gemini-2.0-flash': 0.05,
  'gemini-2.0-flash-lite': 0.0375,
  'text-embedding-004': 0.0125,
  'gemini-embedding-001': 0.075,
  '360gpt-turbo': 0.0858,
  '360gpt-pro': 0.8572,
  'embedding-bert-512-v1': 0.0715,
  // Perplexity Sonar (online) list prices.
  'llama-3.1-sonar-small-128k-online': 0.1,
  'llama-3.1-sonar-large-128k-online': 0.5,
  'llama-3.1-sonar-huge-128k-online': 2.5,
  'yi-medium': 2.5 * RMB,
  'yi-vision': 6 * RMB,
  'abab6.5-chat': 30 * RMB,
  'abab5.5-chat': 15 * RMB,
  // SiliconCloud list prices (RMB per 1M tokens).
  'deepseek-ai/DeepSeek-V2.5': 1.33 * RMB,
  'Qwen/Qwen2.5-72B-Instruct': 4.13 * RMB,
  'BAAI/bge-m3': 0,
  'open-mistral-nemo': 0.075,
  'codestral-latest': 0.15,
  'mistral-embed': 0.05,
  // iFlytek Spark (Lite is free of charge).
  SparkDesk: 1.2858,
  'SparkDesk-v1.1': 1.2858,
  'SparkDesk-v2.1': 1.2858,
  'SparkDesk-v3.1': 1.2858,
  'SparkDesk-v4.0': 1.2858,
  'spark-lite': 0,
  'spark-pro': 1.2858,
  'spark-pro-128k': 1.2858,
  'spark-max': 1.2858,
  'spark-max-32k': 1.2858,
  'spark-4.0-ultra': 1.2858,
  '360gpt2-pro': 0.8572,
  embedding_s1_v1: 0.0715,
  'yi-spark': 1 * RMB,
  'yi-large-turbo': 12 * RMB,
  'yi-large-rag': 25 * RMB,
  'yi-medium-200k': 12 * RMB,
  // Claude 4.x / 5.x, GPT-5, GPT-4.1, o-series, Gemini 3, DeepSeek V3.x, Qwen 3, GLM-4.5+.
  ...CURRENT_MODEL_RATIO,
};

export const DEFAULT_MODEL_PRICE: Record<string, number> = {
  // DashScope text2image, per image: ¥0.16 / ¥0.14 / ¥0.20 at ¥7.3 per dollar.
  'wanx-v1': 0.0219,
  'wanx2.1-t2i-turbo': 0.0192,
  'wanx2.1-t2i-plus': 0.0274,
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
  ...CURRENT_COMPLETION_RATIO,
};

/**
 * Prompt-cache reads (share of the input price a cached token costs), by model prefix: the
 * fallback for a model the CacheRatio option does not name; the first matching prefix wins, so
 * longer prefixes come first. Cached tokens are billed only when the upstream reports them.
 */
export const DEFAULT_CACHE_RATIO_RULES: ReadonlyArray<readonly [prefix: string, ratio: number]> = [
  // OpenAI: gpt-5 family $0.125 of $1.25; gpt-4.1, o3 and o4-mini a quarter; gpt-4o, o1, o3-mini half.
  ['gpt-5', 0.1],
  ['gpt-6', 0.1],
  ['gpt-4.1', 0.25],
  ['o3-mini', 0.5],
  ['o3', 0.25],
  ['o4', 0.25],
  ['gpt-4o', 0.5],
  ['chatgpt-4o', 0.5],
  ['o1', 0.5],
  // DeepSeek V3.2: $0.028 of $0.28.
  ['deepseek', 0.1],
  // Every Claude model with prompt caching (3.x, 4.x, 5.x) reads the cache at a tenth of the input price.
  ['claude', 0.1],
  // Gemini 2.5 and 3 bill cache hits at a tenth of the input price, older Gemini models at a quarter.
  ['gemini-2.5', 0.1],
  ['gemini-3', 0.1],
  ['gemini', 0.25],
  // Qwen (DashScope implicit cache) and GLM (Z.ai) bill hits at a fifth.
  ['qwen', 0.2],
  ['glm', 0.2],
];

/**
 * Prompt-cache writes (share of the input price a token written to the cache costs), by model
 * prefix, for a model the CreateCacheRatio option does not name: Anthropic bills
 * `cache_creation_input_tokens` at 1.25 × input (5-minute cache). Other providers do not charge
 * for writes (OpenAI, DeepSeek, Gemini's implicit cache) or do not report them.
 */
export const DEFAULT_CACHE_CREATION_RATIO_RULES: ReadonlyArray<readonly [prefix: string, ratio: number]> = [['claude', 1.25]];

/**
 * Ratio of a model missing from ModelRatio, used only when the operator turned AllowUnpricedModels
 * on (the reference's v0.4.5 behaviour); otherwise the relay refuses such a model.
 */
export const MISSING_MODEL_RATIO = 30;

/** Audio token ratios relative to text tokens (reference §5.1). */
export const AUDIO_COMPLETION_RATIO = 2;
export function defaultAudioRatio(model: string): number {
  return model.startsWith('gpt-4o-audio') ? 40 : 20;
}
