import { ChannelType, DEFAULT_VIDEO_PRICE, videoQuota, videoUsdPerSecond } from '@modelgate/shared';
import { FAKE_JIMENG_KEY, FAKE_KLING_KEY, startFakeJimeng, startFakeKling, startFakeHailuo, startFakeSeedance, startFakeWan, startFakeSora, startFakeVeo, startFakeVidu, type FakeVeo, type VideoFakeControls } from '@modelgate/testkit';

/** A running video provider fake, as the video tests drive it. */
export type VideoFake = VideoFakeControls & { url: string; close(): Promise<void> };

/**
 * One video provider as the surface tests run it (relay/video/video.api.test.ts): its fake, the
 * channel that points at it, a model it makes and a request both surfaces accept, with the plan
 * (seconds, tier) the gateway must bill that request as.
 */
export interface VideoCase {
  name: string;
  model: string;
  start(): Promise<VideoFake>;
  channel(fake: VideoFake): Record<string, unknown>;
  /** Extra fields of a unified request (`duration`, `size`, `metadata`, …). */
  unified: Record<string, unknown>;
  /** Fields of an OpenAI create body (`seconds`, `size`), as strings. */
  openai: { seconds?: string; size?: string };
  plan: { seconds: number; resolution: string };
  /** Where the provider's content policy says no: refusing the submit (nothing charged), or failing the task (refunded). */
  moderation: 'submit' | 'result';
}

/** What a case's video costs on a new install (default VideoPrice, group ratio 1, 500 000 per dollar). */
export function expectedVideoQuota(c: Pick<VideoCase, 'model' | 'plan'>): number {
  const usd = videoUsdPerSecond(DEFAULT_VIDEO_PRICE, c.model, c.plan.resolution);
  if (usd === undefined) throw new Error(`no default video price for ${c.model} at ${c.plan.resolution}`);
  return videoQuota({ seconds: c.plan.seconds, resolution: c.plan.resolution, usdPerSecond: usd, groupRatio: 1, quotaPerUnit: 500_000 });
}

const STEP_MS = 30;

export const VIDEO_CASES: VideoCase[] = [
  {
    name: 'sora',
    model: 'sora-2',
    start: () => startFakeSora({ key: 'sk-sora-upstream', stepMs: STEP_MS }),
    channel: (f) => ({ type: ChannelType.Sora, key: 'sk-sora-upstream', base_url: f.url, models: 'sora-2,sora-2-pro' }),
    unified: { duration: 8, size: '1280x720' },
    openai: { seconds: '8', size: '1280x720' },
    plan: { seconds: 8, resolution: '720p' },
    moderation: 'submit',
  },
  {
    name: 'veo (Gemini API)',
    model: 'veo-3.0-generate-001',
    start: () => startFakeVeo({ key: 'AIza-veo-upstream', stepMs: STEP_MS }),
    channel: (f) => ({ type: ChannelType.Gemini, key: 'AIza-veo-upstream', base_url: f.url, models: 'veo-3.0-generate-001' }),
    unified: { duration: 8, size: '1280x720' },
    openai: { seconds: '8', size: '1280x720' },
    plan: { seconds: 8, resolution: '720p' },
    moderation: 'result',
  },
  {
    name: 'veo (Vertex AI)',
    model: 'veo-3.1-generate-preview',
    start: () => startFakeVeo({ stepMs: STEP_MS }),
    channel: (f) => ({ type: ChannelType.VertexAI, key: (f as FakeVeo).serviceAccount, base_url: f.url, other: 'us-central1', models: 'veo-3.1-generate-preview' }),
    unified: { duration: 6, size: '1080p', seed: 7 },
    openai: { seconds: '6', size: '1920x1080' },
    plan: { seconds: 6, resolution: '1080p' },
    moderation: 'result',
  },
  {
    name: 'kling',
    model: 'kling-v1',
    start: () => startFakeKling({ stepMs: STEP_MS }),
    channel: (f) => ({ type: ChannelType.Kling, key: FAKE_KLING_KEY, base_url: f.url, models: 'kling-v1' }),
    unified: { duration: 5, size: '1920x1080', metadata: { cfg_scale: 0.7 } },
    openai: { seconds: '5', size: '1920x1080' },
    plan: { seconds: 5, resolution: '1080p' },
    moderation: 'submit',
  },
  {
    name: 'seedance',
    model: 'doubao-seedance-1-0-pro-250528',
    start: () => startFakeSeedance({ key: 'ark-upstream-key', stepMs: STEP_MS }),
    channel: (f) => ({ type: ChannelType.DoubaoVideo, key: 'ark-upstream-key', base_url: f.url, models: 'doubao-seedance-1-0-pro-250528' }),
    unified: { duration: 5, size: '864x480', metadata: { watermark: false } },
    openai: { seconds: '5', size: '864x480' },
    plan: { seconds: 5, resolution: '480p' },
    moderation: 'submit',
  },
  {
    name: 'wan',
    model: 'wan2.2-t2v-plus',
    start: () => startFakeWan({ key: 'sk-wan-upstream', stepMs: STEP_MS }),
    channel: (f) => ({ type: ChannelType.Ali, key: 'sk-wan-upstream', base_url: f.url, models: 'wan2.2-t2v-plus' }),
    unified: { duration: 5, size: '1920*1080', metadata: { parameters: { prompt_extend: false } } },
    openai: { seconds: '5', size: '1920x1080' },
    plan: { seconds: 5, resolution: '1080p' },
    moderation: 'submit',
  },
  {
    name: 'hailuo',
    model: 'MiniMax-Hailuo-02',
    start: () => startFakeHailuo({ key: 'minimax-upstream-key', stepMs: STEP_MS }),
    channel: (f) => ({ type: ChannelType.MiniMax, key: 'minimax-upstream-key', base_url: f.url, models: 'MiniMax-Hailuo-02' }),
    unified: { duration: 10, size: '768p', metadata: { prompt_optimizer: false } },
    openai: { seconds: '10', size: '1366x768' },
    plan: { seconds: 10, resolution: '768p' },
    moderation: 'submit',
  },
  {
    name: 'vidu',
    model: 'vidu2.0',
    start: () => startFakeVidu({ key: 'vidu-upstream-key', stepMs: STEP_MS }),
    channel: (f) => ({ type: ChannelType.Vidu, key: 'vidu-upstream-key', base_url: f.url, models: 'vidu2.0' }),
    unified: { duration: 8, size: '720p', metadata: { movement_amplitude: 'small' } },
    openai: { seconds: '8', size: '1280x720' },
    plan: { seconds: 8, resolution: '720p' },
    moderation: 'result',
  },
  {
    name: 'jimeng',
    model: 'jimeng_t2v_v30',
    start: () => startFakeJimeng({ stepMs: STEP_MS }),
    channel: (f) => ({ type: ChannelType.Jimeng, key: FAKE_JIMENG_KEY, base_url: f.url, models: 'jimeng_t2v_v30' }),
    unified: { duration: 10, size: '720x1280' },
    openai: { seconds: '10', size: '720x1280' },
    plan: { seconds: 10, resolution: '720p' },
    moderation: 'submit',
  },
];
