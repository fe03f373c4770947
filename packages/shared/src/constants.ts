/** Roles, statuses and enums shared by server and web (spec §3, §4, §6). */

export const Role = { Guest: 0, Common: 1, Admin: 10, Root: 100 } as const;
export type RoleValue = (typeof Role)[keyof typeof Role];

export const UserStatus = { Enabled: 1, Disabled: 2, NotEnableable: 3 } as const;

export const TokenStatus = { Enabled: 1, Disabled: 2, Expired: 3, Exhausted: 4 } as const;

export const ChannelStatus = { Unknown: 0, Enabled: 1, ManuallyDisabled: 2, AutoDisabled: 3 } as const;

export const RedemptionStatus = { Unused: 1, Disabled: 2, Used: 3 } as const;

export const LogType = { Unknown: 0, Topup: 1, Consume: 2, Manage: 3, System: 4 } as const;

/** 500 000 quota units are one dollar (the QuotaPerUnit option's default). */
export const DEFAULT_QUOTA_PER_UNIT = 500_000;

/** Length of an API token key, without the `sk-` prefix. */
export const TOKEN_KEY_LENGTH = 48;

export const USERNAME_MAX_LENGTH = 12;
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 20;
export const DISPLAY_NAME_MAX_LENGTH = 20;
export const EMAIL_MAX_LENGTH = 50;
export const TOKEN_NAME_MAX_LENGTH = 30;
/** Group names are stored in 64-character columns (users, tokens, abilities, logs). */
export const GROUP_NAME_MAX_LENGTH = 64;

/** Channel types (spec §3) by numeric id. */
export const ChannelType = {
  OpenAI: 1,
  Midjourney: 2,
  Azure: 3,
  Ollama: 4,
  MidjourneyPlus: 5,
  Custom: 8,
  PaLM: 11,
  Anthropic: 14,
  Baidu: 15,
  Zhipu: 16,
  Ali: 17,
  Xunfei: 18,
  Ai360: 19,
  OpenRouter: 20,
  AIProxyLibrary: 21,
  FastGPT: 22,
  Tencent: 23,
  Gemini: 24,
  Moonshot: 25,
  ZhipuV4: 26,
  Perplexity: 27,
  LingYiWanWu: 31,
  Aws: 33,
  Cohere: 34,
  MiniMax: 35,
  SunoAPI: 36,
  Dify: 37,
  Jina: 38,
  Cloudflare: 39,
  SiliconFlow: 40,
  VertexAI: 41,
  Mistral: 42,
  DeepSeek: 43,
} as const;

export const CHANNEL_TYPE_NAMES: Record<number, string> = {
  1: 'OpenAI',
  2: 'Midjourney Proxy',
  5: 'Midjourney Proxy Plus',
  36: 'Suno API',
  4: 'Ollama',
  14: 'Anthropic Claude',
  33: 'AWS Claude',
  41: 'Vertex AI',
  3: 'Azure OpenAI',
  34: 'Cohere',
  39: 'Cloudflare',
  43: 'DeepSeek',
  15: 'Baidu',
  17: 'Alibaba Qwen',
  18: 'iFlytek Spark',
  16: 'Zhipu ChatGLM',
  26: 'Zhipu GLM-4V',
  24: 'Google Gemini',
  11: 'Google PaLM2',
  25: 'Moonshot',
  19: '360',
  23: 'Tencent Hunyuan',
  31: '01.AI',
  35: 'MiniMax',
  37: 'Dify',
  38: 'Jina',
  40: 'SiliconCloud',
  42: 'Mistral AI',
  8: 'Custom',
  22: 'FastGPT',
  21: 'AI Proxy Library',
};
