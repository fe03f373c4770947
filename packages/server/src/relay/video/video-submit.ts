import { randomBytes } from 'node:crypto';
import { VIDEO_PLATFORM, type Lang } from '@modelgate/shared';
import type { AppContext } from '../../context.js';
import type { TaskRow } from '../../modules/tasks/task-store.js';
import { PROMPT_KEPT, type VideoProps } from '../../modules/tasks/video-store.js';
import type { RuntimeChannel } from '../channel-cache.js';
import { localError, RelayError } from '../relay-error.js';
import { chargedSubmit, payerOf } from '../tasks/task-charge.js';
import type { RelayAuth } from '../token-auth.js';
import { videoCharge } from './video-billing.js';
import { videoIO } from './video-io.js';
import { loadVideoProviders } from './video-registry.js';
import { videoError, type VideoAsk } from './video-request.js';
import { VideoInputError, VideoUpstreamError, type VideoPlan, type VideoProvider, type VideoRequest } from './video-types.js';

export type VideoDeps = Pick<AppContext, 'db' | 'options' | 'relay' | 'quotaLedger' | 'config'>;

const SUBMIT_TIMEOUT_MS = 60_000;
/** Channels a submit may try when an upstream fails (on top of the first), whatever RetryTimes says. */
const MAX_RETRIES = 5;

/** The gateway's public id of a video task (OpenAI's ids look alike: `video_` and hex). */
export function newVideoId(): string {
  return `video_${randomBytes(16).toString('hex')}`;
}

interface Picked {
  ch: RuntimeChannel;
  provider: VideoProvider;
}

/** The next channel of the caller's group serving `model` whose type makes videos (channels of other types are passed over). */
function pickChannel(ctx: VideoDeps, auth: RelayAuth, model: string, tried: Set<number>, providers: ReadonlyMap<number, VideoProvider>): Picked | undefined {
  if (auth.pinned) {
    if (tried.has(auth.pinned.id)) return undefined;
    tried.add(auth.pinned.id);
    const provider = providers.get(auth.pinned.type);
    return provider ? { ch: auth.pinned, provider } : undefined;
  }
  for (;;) {
    const ch = ctx.relay.channels.select(auth.group, model, tried);
    if (!ch) return undefined;
    tried.add(ch.id);
    const provider = providers.get(ch.type);
    if (provider) return { ch, provider };
  }
}

function planOf(provider: VideoProvider, req: VideoRequest, lang: Lang): VideoPlan {
  try {
    return provider.plan(req);
  } catch (err) {
    if (!(err instanceof VideoInputError)) throw err;
    if (err.field === 'seconds') throw videoError(lang, 400, 'VIDEO_SECONDS_UNSUPPORTED', { model: req.model, seconds: req.seconds ?? '', allowed: err.allowed }, 'seconds');
    if (err.field === 'size') throw videoError(lang, 400, 'VIDEO_SIZE_UNSUPPORTED', { model: req.model, size: req.size ?? '', allowed: err.allowed }, 'size');
    throw videoError(lang, 400, 'VIDEO_IMAGES_UNSUPPORTED', { model: req.model, max: err.allowed }, 'images');
  }
}

/** An upstream's refusal as the caller's error: its content policy's word, or its status and reason (a 5xx as 502). */
function upstreamRefusal(err: unknown, lang: Lang): RelayError {
  if (err instanceof VideoUpstreamError) {
    const status = err.status >= 400 && err.status < 500 ? err.status : 502;
    const reason = `${err.message}`.slice(0, 500);
    if (err.moderation) return videoError(lang, 400, 'VIDEO_MODERATION', { reason }, 'prompt');
    return new RelayError(status, 'upstream_error', err.code || 'upstream_error', videoError(lang, status, 'VIDEO_UPSTREAM_REFUSED', { reason }).message, null, false);
  }
  const reason = err instanceof Error ? err.message : String(err);
  return new RelayError(502, 'upstream_error', 'upstream_failed', videoError(lang, 502, 'VIDEO_UPSTREAM_FAILED', { reason: reason.slice(0, 300) }).message, null, false);
}

/** Whether another channel may do better: the upstream failed (transport, 5xx, 429), not the request. */
function retryable(err: unknown): boolean {
  if (!(err instanceof VideoUpstreamError)) return true;
  return !err.moderation && (err.status >= 500 || err.status === 429);
}

/**
 * submit → charge → store, for both surfaces: the caller's model is served by a channel whose type
 * makes videos; its provider decides the duration and size (refusing what the model cannot make),
 * the bill follows from them (video-billing.ts) and is reserved before anything is sent, settled
 * when the upstream accepts the task and released when no channel does; then the task is stored
 * under a public id. A failed upstream is retried on the next channel (RetryTimes).
 */
export async function submitVideo(ctx: VideoDeps, requestId: string, auth: RelayAuth, ask: VideoAsk, lang: Lang): Promise<TaskRow> {
  const { model } = ask;
  if (auth.token.modelLimits && !auth.token.modelLimits.has(model)) throw localError(lang, 403, 'RELAY_MODEL_FORBIDDEN', { errorCode: 'model_not_allowed', detail: model });
  const providers = await loadVideoProviders();
  await ctx.relay.channels.ensure();
  const tried = new Set<number>();
  const first = pickChannel(ctx, auth, model, tried, providers);
  if (!first) {
    if (ctx.relay.channels.select(auth.group, model, new Set())) throw videoError(lang, 400, 'VIDEO_NOT_VIDEO_MODEL', { model }, 'model');
    throw localError(lang, 503, 'RELAY_NO_CHANNEL', { errorCode: 'model_not_found', detail: `${auth.group} / ${model}` });
  }
  const reqFor = (ch: RuntimeChannel): VideoRequest => ({ ...ask, upstreamModel: ch.modelMapping?.[model] ?? model });
  // The plan (and so the bill) is the first channel's; a retry on another channel of another type must make the same video.
  const plan = planOf(first.provider, reqFor(first.ch), lang);
  const action = ask.images.length ? 'generate' : 'textGenerate';
  const charge = videoCharge(ctx, model, plan, auth.group, action, lang);
  const retries = auth.pinned ? 0 : Math.min(MAX_RETRIES, Math.max(0, Math.floor(ctx.options.num('RetryTimes'))));
  const { reply, charged } = await chargedSubmit(ctx, {
    requestId,
    payer: payerOf(auth),
    model,
    action,
    quota: charge.quota,
    channelId: first.ch.id,
    lang,
    shortQuota: (who) =>
      who === 'token'
        ? localError(lang, 403, 'RELAY_TOKEN_QUOTA_INSUFFICIENT', { errorCode: 'pre_consume_token_quota_failed', detail: `need quota: ${charge.quota}` })
        : localError(lang, 403, 'RELAY_USER_QUOTA_INSUFFICIENT', { type: 'insufficient_user_quota', errorCode: 'insufficient_user_quota', detail: `need quota: ${charge.quota}` }),
    send: async () => {
      let at: Picked | undefined = first;
      for (let i = 0; at; i++) {
        const req = reqFor(at.ch);
        try {
          // Another type's provider must accept the same duration and size, or it is passed over.
          const p = i === 0 ? plan : planOf(at.provider, req, lang);
          if (p.seconds !== plan.seconds || p.resolution !== plan.resolution) throw new VideoUpstreamError(400, 'plan_mismatch', 'another channel would make another video');
          const upstreamId = await at.provider.submit(at.ch.target, req, plan, SUBMIT_TIMEOUT_MS, videoIO(ctx));
          ctx.relay.breaker.success(at.ch.id);
          return { upstreamId, ch: at.ch, provider: at.provider, req };
        } catch (err) {
          if (err instanceof RelayError) throw err;
          if (!(err instanceof VideoUpstreamError) || err.status >= 500) ctx.relay.breaker.failure(at.ch.id);
          const next = retryable(err) && i < retries ? pickChannel(ctx, auth, model, tried, providers) : undefined;
          if (!next) throw upstreamRefusal(err, lang);
          at = next;
        }
      }
      throw localError(lang, 503, 'RELAY_NO_CHANNEL', { errorCode: 'model_not_found' });
    },
    accepted: () => true,
    channelOf: (r) => r.ch.id,
    log: { content: charge.content, other: JSON.stringify(charge.other) },
  });
  const now = Math.floor(Date.now() / 1000);
  const props: VideoProps = {
    upstream_id: reply.upstreamId,
    provider: reply.provider.slug,
    model,
    upstream_model: reply.req.upstreamModel,
    seconds: plan.seconds,
    resolution: plan.resolution,
    size: plan.size,
    prompt: ask.prompt.slice(0, PROMPT_KEPT),
    images: ask.images.length,
  };
  const row = {
    created_at: now,
    updated_at: now,
    task_id: newVideoId(),
    platform: VIDEO_PLATFORM,
    user_id: auth.user.id,
    channel_id: reply.ch.id,
    quota: charged,
    action,
    status: 'SUBMITTED',
    fail_reason: '',
    submit_time: now,
    start_time: 0,
    finish_time: 0,
    progress: '0%',
    properties: JSON.stringify(props),
    data: JSON.stringify({ state: 'queued' }),
    request_id: requestId,
  };
  await ctx.db.db.insertInto('tasks').values(row).execute();
  return ctx.db.db.selectFrom('tasks').selectAll().where('task_id', '=', row.task_id).executeTakeFirstOrThrow();
}
