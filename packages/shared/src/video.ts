/**
 * Video generation (issue 34): the price table (the VideoPrice option), the resolution tiers it is
 * keyed by, the quota of a video and the states a video task shows on the OpenAI surface. One
 * definition for the server that bills and the console that edits and explains the bill.
 */

/** Tasks of every video provider live in the `tasks` table under this platform. */
export const VIDEO_PLATFORM = 'video';

/** A resolution tier: the short side of the frame in pixels and `p` (`720p`), or `*` for any tier. */
const TIER = /^[1-9]\d{2,3}p$/;

/**
 * The tier of a size or resolution as providers and callers write it: `1280x720`, `720*1280` and
 * `1280:720` by their short side, `720p`/`720P` as they are. Portrait and landscape of one size
 * fall in one tier; undefined when the text says neither.
 */
export function resolutionTier(text: string): string | undefined {
  const t = text.trim().toLowerCase();
  if (TIER.test(t)) return t;
  const m = /^(\d{2,5})\s*[x*×:]\s*(\d{2,5})$/.exec(t);
  if (!m) return undefined;
  const short = Math.min(Number(m[1]), Number(m[2]));
  return short >= 100 && short <= 9999 ? `${short}p` : undefined;
}

export function isResolutionTier(key: string): boolean {
  return key === '*' || TIER.test(key);
}

/**
 * The VideoPrice option: per model, USD per second of generated video by resolution tier
 * (`{"sora-2-pro": {"720p": 0.3, "1024p": 0.5}}`); `*` prices every tier the model does not name.
 * A model absent here is billed per task at its ModelPrice, and refused when it has neither.
 */
export type VideoPriceTable = Record<string, Record<string, number>>;

/** List prices of the providers' own price pages (USD per second), as a new install ships them. */
export const DEFAULT_VIDEO_PRICE: VideoPriceTable = {
  'sora-2': { '*': 0.1 },
  'sora-2-pro': { '720p': 0.3, '1024p': 0.5 },
  'veo-2.0-generate-001': { '*': 0.35 },
  'veo-3.0-generate-001': { '*': 0.4 },
  'veo-3.0-fast-generate-001': { '*': 0.15 },
  'veo-3.1-generate-preview': { '*': 0.4 },
  'veo-3.1-fast-generate-preview': { '*': 0.15 },
  'kling-v1': { '720p': 0.028, '1080p': 0.049 },
  'kling-v1-6': { '720p': 0.028, '1080p': 0.049 },
  'kling-v2-1': { '720p': 0.028, '1080p': 0.049 },
  'kling-v2-master': { '*': 0.28 },
  'kling-v2-1-master': { '*': 0.28 },
  'doubao-seedance-1-0-pro-250528': { '480p': 0.01, '720p': 0.025, '1080p': 0.05 },
  'doubao-seedance-1-0-lite-t2v-250428': { '480p': 0.007, '720p': 0.017, '1080p': 0.035 },
  'doubao-seedance-1-0-lite-i2v-250428': { '480p': 0.007, '720p': 0.017, '1080p': 0.035 },
  'wan2.2-t2v-plus': { '480p': 0.02, '1080p': 0.1 },
  'wan2.2-i2v-plus': { '480p': 0.02, '1080p': 0.1 },
  'wanx2.1-t2v-turbo': { '*': 0.034 },
  'wanx2.1-t2v-plus': { '*': 0.097 },
  'MiniMax-Hailuo-02': { '512p': 0.017, '768p': 0.045, '1080p': 0.08 },
  'T2V-01': { '*': 0.072 },
  'I2V-01': { '*': 0.072 },
  viduq1: { '*': 0.08 },
  'vidu2.0': { '360p': 0.025, '720p': 0.05, '1080p': 0.1 },
  jimeng_vgfm_t2v_l20: { '*': 0.04 },
  jimeng_t2v_v30: { '*': 0.04 },
  jimeng_t2v_v30_1080p: { '*': 0.06 },
};

/** What is wrong with a VideoPrice value (the option check), or undefined. */
export function videoPriceProblem(parsed: unknown): string | undefined {
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return '';
  for (const [model, row] of Object.entries(parsed as Record<string, unknown>)) {
    if (!model.trim()) return 'an empty model name';
    if (!row || typeof row !== 'object' || Array.isArray(row) || Object.keys(row).length === 0) return model;
    for (const [tier, usd] of Object.entries(row as Record<string, unknown>)) {
      if (!isResolutionTier(tier)) return `${model}.${tier}`;
      if (typeof usd !== 'number' || !Number.isFinite(usd) || usd < 0) return `${model}.${tier}`;
    }
  }
  return undefined;
}

/** USD per second of `model` at `tier`: its tier's price, else its `*` price; undefined when the model has no row or no price for the tier. */
export function videoUsdPerSecond(table: VideoPriceTable, model: string, tier: string): number | undefined {
  const row = Object.hasOwn(table, model) ? table[model] : undefined;
  if (!row) return undefined;
  const v = Object.hasOwn(row, tier) ? row[tier] : row['*'];
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/** The bill of one video: seconds × USD per second × group ratio, in quota units. */
export interface VideoBill {
  seconds: number;
  resolution: string;
  usdPerSecond: number;
  groupRatio: number;
  quotaPerUnit: number;
}

export function videoQuota(b: VideoBill): number {
  return Math.round(b.seconds * b.usdPerSecond * b.quotaPerUnit * b.groupRatio);
}

/** A video task's state on OpenAI's Videos API (`VideoResource.status`), from the stored task status. */
export type OpenAIVideoStatus = 'queued' | 'in_progress' | 'completed' | 'failed';

export function openAIVideoStatus(status: string): OpenAIVideoStatus {
  if (status === 'SUCCESS') return 'completed';
  if (status === 'FAILURE') return 'failed';
  if (status === 'IN_PROGRESS') return 'in_progress';
  return 'queued';
}
