/**
 * Default prices of the models current in 2025–2026 (issue 30), merged into the default tables by
 * default-ratios.ts. Model ratio = list price in $ per 1M input tokens ÷ 2; RMB-priced models
 * are ¥ per 1M × 500 / 7.3 / 1000 (the reference's rate). Completion ratios of these families are
 * rules in completion-ratio.ts; the map below holds only models no rule names. Cache ratios are
 * shares of the input price: a cache read (hit) and a cache write (Anthropic's 5-minute write).
 * Sources: the providers' pricing pages (Anthropic, OpenAI, Google Gemini API, DeepSeek,
 * Alibaba Model Studio mainland, Z.ai), list prices for prompts in the lowest length tier.
 */
const RMB = 500 / 7.3 / 1000;

const each = (names: readonly string[], value: number): Record<string, number> => Object.fromEntries(names.map((n) => [n, value]));

/** Claude 4.x and 5.x: Opus 4.5+ $5, Opus 4 / 4.1 $15, Sonnet 4.x $3, Haiku 4.5 $1 per 1M input. */
const CLAUDE = {
  ...each(['claude-opus-4-8', 'claude-opus-4-7', 'claude-opus-4-6', 'claude-opus-4-5', 'claude-opus-4-5-20251101'], 2.5),
  ...each(['claude-opus-4-1', 'claude-opus-4-1-20250805', 'claude-opus-4-0', 'claude-opus-4-20250514'], 7.5),
  ...each(['claude-sonnet-4-6', 'claude-sonnet-4-5', 'claude-sonnet-4-5-20250929', 'claude-sonnet-4-0', 'claude-sonnet-4-20250514'], 1.5),
  ...each(['claude-haiku-4-5', 'claude-haiku-4-5-20251001'], 0.5),
  // Claude 5.x (2026): Opus 5 $5, Opus 5.5 $4, Sonnet 5 / 5.5 $2, Haiku 5.5 $0.10 (prompts up to 100K).
  'claude-opus-5': 2.5,
  'claude-opus-5-5': 2,
  'claude-sonnet-5': 1,
  'claude-sonnet-5-5': 1,
  'claude-haiku-5-5': 0.05,
};

/** GPT-5 family, GPT-4.1 and the o-series (platform.openai.com/docs/pricing, standard tier). */
const OPENAI = {
  ...each(['gpt-5', 'gpt-5-2025-08-07', 'gpt-5-chat-latest', 'gpt-5-codex', 'gpt-5.1', 'gpt-5.1-chat-latest', 'gpt-5.1-codex', 'gpt-5.1-codex-max'], 0.625),
  ...each(['gpt-5-mini', 'gpt-5-mini-2025-08-07', 'gpt-5.1-codex-mini'], 0.125),
  ...each(['gpt-5-nano', 'gpt-5-nano-2025-08-07'], 0.025),
  'gpt-5-pro': 7.5,
  ...each(['gpt-5.2', 'gpt-5.2-chat-latest', 'gpt-5.2-codex', 'gpt-5.3-codex'], 0.875),
  'gpt-5.2-pro': 10.5,
  'gpt-5.4': 1.25,
  'gpt-5.4-mini': 0.375,
  'gpt-5.4-nano': 0.1,
  'gpt-5.4-pro': 15,
  'gpt-5.5': 2.5,
  'gpt-5.5-pro': 15,
  // GPT-5.6 tiers (June 2026 preview list prices): Sol $5 / $30, Terra $2.50 / $15, Luna $1 / $6.
  'gpt-5.6-sol': 2.5,
  'gpt-5.6-terra': 1.25,
  'gpt-5.6-luna': 0.5,
  // Codex CLI 0.171's default model; no published price found: priced as its tier's sibling gpt-5.6-sol.
  'gpt-6.2-sol': 2.5,
  ...each(['gpt-4.1', 'gpt-4.1-2025-04-14'], 1),
  ...each(['gpt-4.1-mini', 'gpt-4.1-mini-2025-04-14'], 0.2),
  ...each(['gpt-4.1-nano', 'gpt-4.1-nano-2025-04-14'], 0.05),
  // o1-mini is $1.10 since 2025 (the reference's 1.5 was its launch price).
  ...each(['o1-mini', 'o3-mini', 'o3-mini-2025-01-31', 'o4-mini', 'o4-mini-2025-04-16'], 0.55),
  'o1-pro': 75,
  ...each(['o3', 'o3-2025-04-16'], 1),
  'o3-pro': 10,
  'o3-deep-research': 5,
  'o4-mini-deep-research': 1,
};

/** Gemini API (ai.google.dev/gemini-api/docs/pricing), prompts up to 200K tokens. */
const GEMINI = {
  'gemini-3-pro-preview': 1,
  'gemini-3.1-pro-preview': 1,
  'gemini-3-flash-preview': 0.25,
  'gemini-3.1-flash-lite-preview': 0.125,
};

/**
 * DeepSeek: deepseek-chat and deepseek-reasoner are V3.2 at $0.28 (miss) / $0.028 (hit) / $0.42;
 * the V3.x names other platforms (DashScope) serve at their RMB list prices.
 */
const DEEPSEEK = {
  'deepseek-chat': 0.14,
  'deepseek-reasoner': 0.14,
  'deepseek-v3.2': 2 * RMB,
  'deepseek-v3.1': 4 * RMB,
  'deepseek-v3': 2 * RMB,
  'deepseek-r1': 4 * RMB,
};

/** Qwen on DashScope (mainland, ¥ per 1M, ≤32K tier, non-thinking output). */
const QWEN = {
  'qwen3-max': 2.5 * RMB,
  'qwen-max': 2.4 * RMB,
  'qwen-plus': 0.8 * RMB,
  'qwen-turbo': 0.3 * RMB,
  'qwen-flash': 0.15 * RMB,
  'qwen3-coder-plus': 4 * RMB,
  'qwen3-coder-flash': 1 * RMB,
  'qwen3-235b-a22b': 2 * RMB,
};

/** GLM on Z.ai (USD list prices, one tier); the Flash models are free. */
const GLM = {
  ...each(['glm-4.5', 'glm-4.6', 'glm-4.7', 'glm-4.5v'], 0.3),
  'glm-4.5-air': 0.1,
  'glm-4.6v': 0.15,
  'glm-4.5-flash': 0,
  'glm-4.7-flash': 0,
  'glm-5': 0.5,
  'glm-5.1': 0.6,
};

export const CURRENT_MODEL_RATIO: Record<string, number> = { ...CLAUDE, ...OPENAI, ...GEMINI, ...DEEPSEEK, ...QWEN, ...GLM };

/**
 * Completion ratios (output price ÷ input price) of current models that no rule in
 * completion-ratio.ts covers; they are CompletionRatio option defaults, so an operator may change them.
 */
export const CURRENT_COMPLETION_RATIO: Record<string, number> = {
  'deepseek-v3.2': 1.5,
  'deepseek-v3.1': 3,
  'deepseek-v3': 4,
  'deepseek-r1': 4,
  'qwen3-max': 4,
  'qwen-max': 4,
  'qwen-plus': 2.5,
  'qwen-turbo': 2,
  'qwen-flash': 10,
  'qwen-long': 4,
  'qwen3-coder-plus': 4,
  'qwen3-coder-flash': 4,
  'qwen3-235b-a22b': 4,
  ...each(['glm-4.5', 'glm-4.6', 'glm-4.7'], 2.2 / 0.6),
  'glm-4.5v': 3,
  'glm-4.6v': 3,
  'glm-4.5-air': 5.5,
  'glm-5': 3.2,
  'glm-5.1': 4 / 1.2,
};

/**
 * CacheRatio option defaults: a cached prompt token's share of the input price, for the catalogue's
 * current models (a model missing here falls back to DEFAULT_CACHE_RATIO_RULES, then 1).
 */
export const DEFAULT_CACHE_RATIO: Record<string, number> = {
  ...each(Object.keys(CLAUDE), 0.1),
  // Opus 5.5 reads the cache at $0.20 and Sonnet 5.5 at $0.10 (since 2026-10-07): 0.05 × input.
  'claude-opus-5-5': 0.05,
  'claude-sonnet-5-5': 0.05,
  ...each(Object.keys(OPENAI).filter((m) => m.startsWith('gpt-5') && !m.endsWith('-pro')), 0.1),
  ...each(['gpt-4.1', 'gpt-4.1-2025-04-14', 'gpt-4.1-mini', 'gpt-4.1-mini-2025-04-14', 'gpt-4.1-nano', 'gpt-4.1-nano-2025-04-14'], 0.25),
  ...each(['o3', 'o3-2025-04-16', 'o4-mini', 'o4-mini-2025-04-16', 'o3-deep-research', 'o4-mini-deep-research'], 0.25),
  ...each(['o1', 'o1-2024-12-17', 'o1-mini', 'o3-mini', 'o3-mini-2025-01-31'], 0.5),
  ...each(['gpt-4o', 'gpt-4o-2024-08-06', 'gpt-4o-2024-11-20', 'gpt-4o-mini', 'gpt-4o-mini-2024-07-18'], 0.5),
  ...each(['gemini-2.5-pro', 'gemini-2.5-flash', 'gemini-2.5-flash-lite', ...Object.keys(GEMINI)], 0.1),
  'gemini-2.0-flash': 0.25,
  ...each(['deepseek-chat', 'deepseek-reasoner', 'deepseek-v3.2'], 0.1),
  ...each(Object.keys(QWEN), 0.2),
  // Z.ai: $0.11 of $0.60, $0.03 of $0.20, $0.20 of $1, $0.24 of $1.20.
  ...each(['glm-4.5', 'glm-4.6', 'glm-4.7', 'glm-4.5v'], 0.11 / 0.6),
  'glm-4.5-air': 0.15,
  'glm-5': 0.2,
  'glm-5.1': 0.2,
};

/** CreateCacheRatio option defaults: a prompt token written to the cache (Anthropic 5-minute writes, 1.25 × input). */
export const DEFAULT_CREATE_CACHE_RATIO: Record<string, number> = each(
  [...Object.keys(CLAUDE), 'claude-3-7-sonnet-20250219', 'claude-3-5-haiku-20241022', 'claude-3-5-sonnet-20241022', 'claude-3-haiku-20240307', 'claude-3-opus-20240229'],
  1.25,
);
