/**
 * Channel types (spec §3, reference §11): the one table the console's type list, the server's
 * channel rules and the relay adapters read. Labels shown in the console come from i18n
 * (`channel:type.<id>`); `name` is the reference's own name, for logs and docs.
 */

/** Channel type ids by name. */
export const ChannelType = {
  OpenAI: 1,
  Midjourney: 2,
  Azure: 3,
  Ollama: 4,
  MidjourneyPlus: 5,
  OpenAIMax: 6,
  OhMyGPT: 7,
  Custom: 8,
  AILS: 9,
  AIProxy: 10,
  PaLM: 11,
  API2GPT: 12,
  AIGC2D: 13,
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
  // Video-only upstreams (issue 34), numbered as the reference numbers them.
  Kling: 50,
  Jimeng: 51,
  Vidu: 52,
  DoubaoVideo: 54,
  Sora: 55,
} as const;
export type ChannelTypeId = (typeof ChannelType)[keyof typeof ChannelType];

/** How the console labels `base_url` for a type (and whether the type has one at all). */
export type BaseUrlField = 'proxy' | 'azure' | 'custom' | 'fastgpt' | 'suno' | 'none';
/** What a type keeps in the channel's `other` column. */
export type OtherField = 'azureVersion' | 'sparkVersion' | 'knowledgeId' | 'accountId' | 'vertexRegion';

export interface ChannelTypeInfo {
  id: number;
  name: string;
  /** The console's tag colour (antd preset). */
  color: string;
  /** Upstream used when the channel's base_url is empty; '' when the channel must give its own. */
  baseUrl: string;
  baseUrlField: BaseUrlField;
  other?: OtherField;
  /** Stored in `other` when a channel of this type is saved without one (spec §5). */
  defaultOther?: string;
  /** The OpenAI organization field applies. */
  organization?: boolean;
  /** The shape of a composite key, shown as the key field's placeholder. */
  keyHint?: string;
  /** The key is one multi-line JSON credential: never split into one channel per line. */
  jsonKey?: boolean;
  /** A composite key the server checks on save (see `channelKeyProblem`). */
  keyFormat?: KeyFormat;
  /** A fixed model list (spec §4); other types take the server's list for the type. */
  models?: readonly string[];
  /** The channel test can call it (task-only types cannot: reference §6.1). */
  testable: boolean;
  /** The server can query its balance (reference §6.2). */
  balance?: boolean;
  /** The console's "fetch models" can list the upstream's models (OpenAI's /v1/models, Gemini's models). */
  listsModels?: boolean;
  /** The channel setting `thinking_to_content` applies: reasoning folded into `content` as `<think>…</think>`. */
  thinkingToContent?: boolean;
  /** Its channels make videos (issue 34): `/v1/video/generations` and `/v1/videos` serve their video models. */
  video?: boolean;
}

const MJ_MODELS = ['mj_imagine', 'mj_variation', 'mj_reroll', 'mj_blend', 'mj_upscale', 'mj_describe', 'mj_uploads'];
const MJ_PLUS_MODELS = [
  ...MJ_MODELS,
  'swap_face',
  'mj_zoom',
  'mj_shorten',
  'mj_modal',
  'mj_inpaint',
  'mj_custom_zoom',
  'mj_high_variation',
  'mj_low_variation',
  'mj_pan',
];

type Entry = Omit<ChannelTypeInfo, 'id' | 'testable' | 'baseUrlField'> & { testable?: boolean; baseUrlField?: BaseUrlField };

/** Every known type; the console offers those of CHANNEL_TYPE_ORDER. */
const TYPES: Record<number, Entry> = {
  1: { name: 'OpenAI', color: 'green', baseUrl: 'https://api.openai.com', organization: true, balance: true, listsModels: true, video: true },
  2: { name: 'Midjourney Proxy', color: 'geekblue', baseUrl: '', models: MJ_MODELS, testable: false },
  3: { name: 'Azure OpenAI', color: 'cyan', baseUrl: '', baseUrlField: 'azure', other: 'azureVersion', defaultOther: '2023-06-01-preview' },
  4: { name: 'Ollama', color: 'default', baseUrl: 'http://localhost:11434', listsModels: true },
  5: { name: 'Midjourney Proxy Plus', color: 'blue', baseUrl: '', models: MJ_PLUS_MODELS, testable: false },
  6: { name: 'OpenAI-Max', color: 'default', baseUrl: 'https://api.openaimax.com' },
  7: { name: 'OhMyGPT', color: 'default', baseUrl: 'https://api.ohmygpt.com' },
  8: { name: 'Custom', color: 'pink', baseUrl: '', baseUrlField: 'custom', balance: true },
  9: { name: 'AILS', color: 'default', baseUrl: 'https://api.caipacity.com' },
  10: { name: 'AIProxy', color: 'default', baseUrl: 'https://api.aiproxy.io', balance: true },
  11: { name: 'Google PaLM2', color: 'orange', baseUrl: 'https://generativelanguage.googleapis.com', keyHint: 'AIza…', keyFormat: 'googleApiKey', listsModels: true },
  12: { name: 'API2GPT', color: 'default', baseUrl: 'https://api.api2gpt.com', balance: true },
  13: { name: 'AIGC2D', color: 'default', baseUrl: 'https://api.aigc2d.com', balance: true },
  14: { name: 'Anthropic Claude', color: 'purple', baseUrl: 'https://api.anthropic.com' },
  15: { name: 'Baidu', color: 'blue', baseUrl: 'https://aip.baidubce.com', keyHint: 'APIKey|SecretKey, or bce-v3/… (Qianfan v2)', keyFormat: 'baidu' },
  16: { name: 'Zhipu ChatGLM', color: 'purple', baseUrl: 'https://open.bigmodel.cn', keyHint: 'id.secret', keyFormat: 'zhipu' },
  17: { name: 'Alibaba Qwen', color: 'orange', baseUrl: 'https://dashscope.aliyuncs.com', keyHint: 'sk-…', keyFormat: 'dashscope', video: true },
  18: { name: 'iFlytek Spark', color: 'blue', baseUrl: 'wss://spark-api.xf-yun.com', other: 'sparkVersion', defaultOther: 'v2.1', keyHint: 'APPID|APISecret|APIKey', keyFormat: 'spark' },
  19: { name: '360', color: 'default', baseUrl: 'https://ai.360.cn' },
  20: { name: 'OpenRouter', color: 'default', baseUrl: 'https://openrouter.ai/api', balance: true },
  21: { name: 'AI Proxy Library', color: 'purple', baseUrl: 'https://api.aiproxy.io', other: 'knowledgeId' },
  22: { name: 'FastGPT', color: 'blue', baseUrl: 'https://fastgpt.run/api/openapi', baseUrlField: 'fastgpt' },
  23: { name: 'Tencent Hunyuan', color: 'cyan', baseUrl: 'https://hunyuan.tencentcloudapi.com', keyHint: 'AppId|SecretId|SecretKey', keyFormat: 'tencent' },
  24: { name: 'Google Gemini', color: 'orange', baseUrl: 'https://generativelanguage.googleapis.com', listsModels: true, video: true },
  25: { name: 'Moonshot', color: 'green', baseUrl: 'https://api.moonshot.cn', balance: true },
  26: { name: 'Zhipu GLM-4V', color: 'magenta', baseUrl: 'https://open.bigmodel.cn', keyHint: 'id.secret', keyFormat: 'zhipu' },
  27: { name: 'Perplexity', color: 'default', baseUrl: 'https://api.perplexity.ai' },
  31: { name: '01.AI', color: 'green', baseUrl: 'https://api.lingyiwanwu.com' },
  33: { name: 'AWS Claude', color: 'purple', baseUrl: '', keyHint: 'AK|SK|Region', keyFormat: 'aws' },
  34: { name: 'Cohere', color: 'magenta', baseUrl: 'https://api.cohere.ai' },
  35: { name: 'MiniMax', color: 'green', baseUrl: 'https://api.minimax.chat', video: true },
  36: { name: 'Suno API', color: 'green', baseUrl: '', baseUrlField: 'suno', models: ['suno_music', 'suno_lyrics'], testable: false },
  37: { name: 'Dify', color: 'cyan', baseUrl: 'https://api.dify.ai', keyHint: 'app-…', keyFormat: 'difyApp' },
  38: { name: 'Jina', color: 'blue', baseUrl: 'https://api.jina.ai' },
  39: { name: 'Cloudflare', color: 'default', baseUrl: 'https://api.cloudflare.com', other: 'accountId', keyHint: 'API token (account id in its field), or AccountId|Token', keyFormat: 'cloudflare' },
  40: { name: 'SiliconCloud', color: 'purple', baseUrl: 'https://api.siliconflow.cn', balance: true },
  41: { name: 'Vertex AI', color: 'blue', baseUrl: '', baseUrlField: 'none', other: 'vertexRegion', jsonKey: true, keyFormat: 'serviceAccount', video: true },
  42: { name: 'Mistral AI', color: 'blue', baseUrl: 'https://api.mistral.ai' },
  43: { name: 'DeepSeek', color: 'blue', baseUrl: 'https://api.deepseek.com', balance: true, thinkingToContent: true },
  // Video generation (issue 34): task upstreams the channel test cannot call.
  50: { name: 'Kling', color: 'lime', baseUrl: 'https://api.klingai.com', keyHint: 'AccessKey|SecretKey', keyFormat: 'akSk', models: ['kling-v1', 'kling-v1-6', 'kling-v2-1', 'kling-v2-master', 'kling-v2-1-master'], testable: false, video: true },
  51: { name: 'Jimeng', color: 'volcano', baseUrl: 'https://visual.volcengineapi.com', keyHint: 'AccessKeyId|SecretAccessKey', keyFormat: 'akSk', models: ['jimeng_vgfm_t2v_l20', 'jimeng_t2v_v30', 'jimeng_t2v_v30_1080p'], testable: false, video: true },
  52: { name: 'Vidu', color: 'cyan', baseUrl: 'https://api.vidu.cn', models: ['viduq1', 'vidu2.0'], testable: false, video: true },
  54: { name: 'Doubao Seedance', color: 'blue', baseUrl: 'https://ark.cn-beijing.volces.com', models: ['doubao-seedance-1-0-pro-250528', 'doubao-seedance-1-0-lite-t2v-250428', 'doubao-seedance-1-0-lite-i2v-250428'], testable: false, video: true },
  55: { name: 'OpenAI Sora', color: 'green', baseUrl: 'https://api.openai.com', organization: true, models: ['sora-2', 'sora-2-pro'], testable: false, video: true },
};

/** The console's type list, in the spec §3 order. */
export const CHANNEL_TYPE_ORDER: readonly number[] = [
  1, 2, 5, 36, 4, 14, 33, 41, 3, 34, 39, 43, 15, 17, 18, 16, 26, 24, 11, 25, 19, 23, 31, 35, 37, 38, 40, 42, 8, 22, 21,
  // Video generation upstreams (issue 34), after the spec §3 list.
  55, 50, 54, 52, 51,
];

export const CHANNEL_TYPES: ReadonlyMap<number, ChannelTypeInfo> = new Map(
  Object.entries(TYPES).map(([id, e]) => [Number(id), { ...e, id: Number(id), testable: e.testable ?? true, baseUrlField: e.baseUrlField ?? 'proxy' }]),
);

export function channelTypeInfo(type: number): ChannelTypeInfo | undefined {
  return CHANNEL_TYPES.get(type);
}

/** A type's description; a type this version does not know gets the generic OpenAI-style fields. */
export function channelTypeOf(type: number): ChannelTypeInfo {
  return CHANNEL_TYPES.get(type) ?? { id: type, name: String(type), color: 'default', baseUrl: '', baseUrlField: 'proxy', testable: true };
}

export function isChannelType(type: number): boolean {
  return CHANNEL_TYPES.has(type);
}

export function channelTypeColor(type: number): string {
  return CHANNEL_TYPES.get(type)?.color ?? 'default';
}

/** The channel types whose channels make videos (the video task kind polls their tasks). */
export const VIDEO_CHANNEL_TYPES: readonly number[] = [...CHANNEL_TYPES.values()].filter((t) => t.video).map((t) => t.id);

/** The spec §4 prefill: a type's fixed list, else the server's list for it (`GET /api/models`). */
export function modelsForType(type: number, byType: Record<string, string[]> | undefined): string[] {
  const fixed = CHANNEL_TYPES.get(type)?.models;
  return fixed ? [...fixed] : (byType?.[String(type)] ?? []);
}

export type KeyFormat = 'aws' | 'serviceAccount' | 'cloudflare' | 'zhipu' | 'googleApiKey' | 'baidu' | 'difyApp' | 'dashscope' | 'tencent' | 'spark' | 'akSk';

const AWS_REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;

/** An AWS region name (`us-east-1`): a Bedrock key's third part, placed in the upstream host. */
export function isAwsRegion(region: string): boolean {
  return AWS_REGION.test(region);
}

/**
 * A Google Cloud project id (lower-case letters, digits, hyphens; `domain.com:project` for the old
 * domain-scoped ones). It goes into the Vertex URL's path, encoded, but never anything that could
 * leave its segment.
 */
const GCP_PROJECT = /^[a-z0-9][a-z0-9.:-]{0,99}$/;

function isServiceAccount(key: string): boolean {
  try {
    const j = JSON.parse(key) as Record<string, unknown>;
    return (
      ['client_email', 'private_key', 'project_id'].every((f) => typeof j[f] === 'string' && j[f] !== '') &&
      String(j.private_key).includes('PRIVATE KEY') &&
      GCP_PROJECT.test(String(j.project_id))
    );
  } catch {
    return false;
  }
}

/** Each composite key shape: what the refusal shows, and the check. */
const KEY_FORMATS: Record<KeyFormat, { expected: string; valid(key: string): boolean }> = {
  // An optional 4th part is an STS session token (temporary credentials).
  aws: {
    expected: 'AccessKeyId|SecretAccessKey|Region, e.g. AKIA…|wJal…|us-east-1 (optionally |SessionToken)',
    valid: (key) => {
      const parts = key.split('|').map((p) => p.trim());
      return (parts.length === 3 || parts.length === 4) && parts.every(Boolean) && AWS_REGION.test(parts[2]!);
    },
  },
  serviceAccount: {
    expected: 'a Google service-account JSON key with project_id, client_email and private_key',
    valid: isServiceAccount,
  },
  // Baidu ERNIE: the application's API Key and Secret Key (exchanged for an access token).
  // A Qianfan v2 API key (`bce-v3/ALTAK-…/…`) switches the channel to the OpenAI-compatible v2 API.
  baidu: {
    expected: 'APIKey|SecretKey, e.g. Hf4kW2…|Qp8zR1…, or a Qianfan v2 API key, e.g. bce-v3/ALTAK-…/…',
    valid: (key) => {
      if (key.startsWith('bce-v3/')) return /^bce-v3\/[\w-]+\/[\w-]+$/.test(key);
      const parts = key.split('|').map((p) => p.trim());
      return parts.length === 2 && parts.every((p) => /^[\w-]+$/.test(p));
    },
  },
  // DashScope: the console's API key.
  dashscope: {
    expected: 'a DashScope API key, e.g. sk-0123456789abcdef0123456789abcdef',
    valid: (key) => /^sk-[\w-]+$/.test(key),
  },
  // Tencent Cloud: the numeric AppId and the API key pair (SecretId, SecretKey) that signs TC3.
  tencent: {
    expected: 'AppId|SecretId|SecretKey, e.g. 1300000000|AKIDz8krbsJ5…|Gu5t9xGA…',
    valid: (key) => {
      const parts = key.split('|').map((p) => p.trim());
      return parts.length === 3 && /^\d+$/.test(parts[0]!) && /^[\w-]+$/.test(parts[1]!) && /^[\w-]+$/.test(parts[2]!);
    },
  },
  // iFlytek Spark: the app's APPID, APISecret (signs the WebSocket URL) and APIKey, from the console's app page.
  spark: {
    expected: 'APPID|APISecret|APIKey, e.g. 1a2b3c4d|MjlmNzkzNmZkMDQ2OTc4OTY1MjZjNzRj|8f7e6d5c4b3a29180f1e2d3c4b5a6978',
    valid: (key) => {
      const parts = key.split('|').map((p) => p.trim());
      // The APISecret is base64-like: `+`, `/` and `=` are allowed besides word characters.
      return parts.length === 3 && parts.every((p) => /^[\w+/=-]+$/.test(p));
    },
  },
  // Zhipu: the console's API key, `<id>.<secret>` (the secret signs the request's JWT).
  zhipu: {
    expected: 'id.secret, e.g. 0f1e2d3c4b5a69788796a5b4c3d2e1f0.AbCdEfGhIjKlMnOp',
    valid: (key) => /^[\w-]+\.[\w-]+$/.test(key),
  },
  // Google AI Studio / PaLM: one API key, no separators or spaces (it travels in the URL's `key`).
  googleApiKey: {
    expected: 'a Google API key, e.g. AIzaSyA1b2C3d4E5f6G7h8I9j0K',
    valid: (key) => /^[\w-]{20,}$/.test(key),
  },
  // Kling (the JWT's issuer and HMAC secret) and Jimeng (Volcengine's request signing): an access key pair.
  akSk: {
    expected: 'AccessKey|SecretKey, e.g. AKLT4f3e2d1c…|WmpNek1qRTVN…',
    valid: (key) => {
      const parts = key.split('|').map((p) => p.trim());
      return parts.length === 2 && parts.every((p) => /^[\w+/=-]+$/.test(p));
    },
  },
  // Dify: an app's API key (one key per app), `app-` and the secret.
  difyApp: {
    expected: 'a Dify app API key, e.g. app-AbCdEfGhIjKlMnOpQrStUvWx',
    valid: (key) => /^app-[\w-]+$/.test(key),
  },
  // Cloudflare: the API token alone (the account id in the channel's account id field), or `accountId|token`.
  cloudflare: {
    expected: 'a Cloudflare API token (with the account id in the account id field), or AccountId|Token, e.g. 0123456789abcdef0123456789abcdef|AbCd…',
    valid: (key) => {
      const parts = key.split('|').map((p) => p.trim());
      if (parts.length === 1) return /^[\w-]+$/.test(parts[0]!);
      return parts.length === 2 && /^[0-9a-f]{32}$/i.test(parts[0]!) && /^[\w-]+$/.test(parts[1]!);
    },
  },
};

/** The expected key format when `key` does not have it (shown in the refusal), else undefined. */
export function channelKeyProblem(type: number, key: string): string | undefined {
  const format = CHANNEL_TYPES.get(type)?.keyFormat;
  if (!format) return undefined;
  return KEY_FORMATS[format].valid(key.trim()) ? undefined : KEY_FORMATS[format].expected;
}

/** The keys a create request's key field holds: one per line, or one JSON credential. */
export function splitChannelKeys(type: number, raw: string): string[] {
  const key = raw.trim();
  if (CHANNEL_TYPES.get(type)?.jsonKey) return key ? [key] : [];
  return key.split('\n').map((k) => k.trim()).filter(Boolean);
}
