import { ChannelStatus, relayLangFromHeader, type MjAction } from '@modelgate/shared';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { httpUrl, storedProperties, type NotifyBinding } from '../../modules/tasks/mj-store.js';
import { midjourneyTaskAdapter } from '../adapters/midjourney/task-adapter.js';
import type { TaskAdapter } from '../adapters/task-types.js';
import type { RuntimeChannel } from '../channel-cache.js';
import { chargedSubmit, payerOf, taskQuota } from '../tasks/task-charge.js';
import type { RelayAuth } from '../token-auth.js';
import { chargeable, clearMode, intentOf, invalid, MJ_NOT_FOUND, MJ_RATE_LIMITED, MJ_SYSTEM, MjError, type MjReplyBody } from './mj-action.js';
import { clientHookOf, signedHook } from './mj-notify.js';

type Deps = Pick<AppContext, 'db' | 'options' | 'relay' | 'quotaLedger' | 'config' | 'secrets'>;

const SUBMIT_TIMEOUT_MS = 60_000;

export interface MjChannel {
  ch: RuntimeChannel;
  adapter: TaskAdapter;
}

/** The Midjourney kind when the channel is a Midjourney proxy (a channel of another kind cannot take drawing tasks). */
function mjKindOf(ch: RuntimeChannel | null | undefined): TaskAdapter | undefined {
  return ch && midjourneyTaskAdapter.types.includes(ch.type) ? midjourneyTaskAdapter : undefined;
}

/** The channel that owns a stored task (follow-ups go there); refused when it is gone or disabled. */
export async function originChannel(ctx: Deps, channelId: number): Promise<MjChannel> {
  await ctx.relay.channels.ensure();
  const ch = ctx.relay.channels.get(channelId);
  const adapter = mjKindOf(ch);
  if (!ch || !adapter) throw new MjError(503, MJ_NOT_FOUND, `the channel of this task (#${channelId}) no longer exists`);
  if (ch.status !== ChannelStatus.Enabled) throw new MjError(503, MJ_NOT_FOUND, `the channel of this task (#${channelId}) is disabled`);
  return { ch, adapter };
}

async function pickChannel(ctx: Deps, auth: RelayAuth, model: string): Promise<MjChannel> {
  await ctx.relay.channels.ensure();
  const ch = auth.pinned ?? ctx.relay.channels.select(auth.group, model, new Set());
  const adapter = mjKindOf(ch);
  if (!ch || !adapter) throw new MjError(503, MJ_NOT_FOUND, `no available channel for model ${model} in group ${auth.group}`);
  return { ch, adapter };
}

/**
 * The client's body as the upstream gets it: the Mj* switches decide what passes (§8.2). The
 * client's notifyHook never does: with MjNotifyEnabled the proxy gets this gateway's signed
 * callback instead, and the client's hook is called from here (mj-notify.ts).
 */
function upstreamBody(ctx: Deps, body: Record<string, unknown>, hookUrl: string | undefined): Record<string, unknown> {
  const out = { ...body };
  if (!ctx.options.bool('MjAccountFilterEnabled')) delete out.accountFilter;
  delete out.notifyHook;
  if (hookUrl) out.notifyHook = hookUrl;
  if (ctx.options.bool('MjModeClearEnabled') && typeof out.prompt === 'string') out.prompt = clearMode(out.prompt);
  return out;
}

/**
 * One submit (§8.3): the price of `mj_<action>` is reserved first (too little quota is code 4 and
 * nothing reaches the upstream), then charged only when the upstream accepted the job (codes 1,
 * 21, 22) and released otherwise; every submit leaves a task row.
 */
export async function submitMj(ctx: Deps, req: FastifyRequest, auth: RelayAuth, path: string, body: Record<string, unknown>): Promise<MjReplyBody> {
  const intent = intentOf(path, body);
  const { model, quota } = taskQuota(ctx, midjourneyTaskAdapter, intent.action, auth.group);
  if (auth.token.modelLimits && !auth.token.modelLimits.has(model)) throw new MjError(403, 4, `this token may not use model ${model}`);
  let target: MjChannel;
  if (intent.originId) {
    const origin = await ctx.db.db.selectFrom('midjourneys').selectAll().where('mj_id', '=', intent.originId).where('user_id', '=', auth.user.id).executeTakeFirst();
    if (!origin) throw new MjError(404, MJ_NOT_FOUND, `task_not_found: ${intent.originId}`);
    if (intent.action !== 'MODAL' && ctx.options.bool('MjActionCheckSuccessEnabled') && origin.status !== 'SUCCESS') {
      throw invalid(`task_status_not_success: task ${intent.originId} is ${origin.status || 'not started'}`);
    }
    target = await originChannel(ctx, Number(origin.channel_id));
  } else target = await pickChannel(ctx, auth, model);
  const clientHook = ctx.options.bool('MjNotifyEnabled') ? clientHookOf(body, relayLangFromHeader(req.headers['accept-language'])) : '';
  const hook = signedHook(ctx, auth.user.id, target.ch.id);
  const binding: NotifyBinding | null = hook ? { nonce: hook.nonce, hook: clientHook } : null;

  const { charged, reply } = await chargedSubmit(ctx, {
    requestId: req.id,
    payer: payerOf(auth),
    model,
    action: intent.action,
    quota,
    channelId: target.ch.id,
    lang: relayLangFromHeader(req.headers['accept-language']),
    shortQuota: (who) => invalid(`quota_not_enough: ${who} cannot pay ${quota}`),
    // A periodic limit or plan allowance with no room: the proxy's rate-limit code, HTTP 429 and when it refills.
    periodLimited: (err) => new MjError(429, MJ_RATE_LIMITED, err.message, err.retryAfterSec),
    send: async () => {
      const upstream = await target.adapter.call(target.ch.target, 'POST', `/mj${path}`, upstreamBody(ctx, body, hook?.url), SUBMIT_TIMEOUT_MS).catch((err: unknown) => {
        throw new MjError(502, MJ_SYSTEM, `upstream request failed: ${(err as Error).message}`);
      });
      const r = upstream.json as Partial<MjReplyBody> | null;
      if (upstream.status !== 200 || !r || typeof r.code !== 'number') {
        throw new MjError(502, MJ_SYSTEM, `upstream answered ${upstream.status}${r ? `: ${JSON.stringify(r).slice(0, 300)}` : ' with an empty body'}`);
      }
      return r as MjReplyBody;
    },
    accepted: (r) => chargeable(intent.action, r.code),
  });
  const code = reply.code;
  await storeTask(ctx, auth, target, intent.action, body, reply, { quota: charged, requestId: req.id }, binding);
  // Code 3 on a fresh submit means the proxy has no Discord account left for it (§8.3): the channel
  // is switched off when it may be. On a follow-up it only says the original task is unknown
  // upstream, so a caller's stale task id can never disable a channel (the reference's bug).
  if (code === MJ_NOT_FOUND && !intent.originId && target.ch.autoBan && ctx.options.bool('AutomaticDisableChannelEnabled')) {
    const why = `No available account instance: ${typeof reply.description === 'string' ? reply.description : ''}`.slice(0, 500);
    await ctx.relay.autoDisableChannel(target.ch.id, why).catch((err: unknown) => req.log.error({ err }, 'auto-disable failed'));
  }
  // Code 30 is the proxy's rate limit: answered as HTTP 429 so clients back off.
  if (code === MJ_RATE_LIMITED) throw new MjError(429, code, typeof reply.description === 'string' ? reply.description : 'rate limited');
  // Clients wait for code 1: "queued" and "exists" are both an accepted job (a modal stays 21).
  const modal = intent.action === 'INPAINT' || intent.action === 'CUSTOM_ZOOM';
  return { ...reply, code: code === 22 || (code === 21 && !modal) ? 1 : code };
}

/** `charge`: what the submit charged and the ledger request it was charged under (a refund finds who paid by it). */
async function storeTask(ctx: Deps, auth: RelayAuth, target: MjChannel, action: MjAction, body: Record<string, unknown>, reply: MjReplyBody, charge: { quota: number; requestId: string }, binding: NotifyBinding | null): Promise<void> {
  const { quota } = charge;
  const accepted = quota > 0 || chargeable(action, reply.code);
  const props = reply.properties ?? {};
  const mjId = typeof reply.result === 'string' ? reply.result : '';
  let status = accepted ? 'SUBMITTED' : 'FAILURE';
  let progress = accepted ? '0%' : '100%';
  let image = '';
  if (reply.code === 21 && typeof props.status === 'string') status = props.status;
  if (reply.code === 21) image = httpUrl(props.imageUrl) ?? '';
  if (status === 'SUCCESS' || (action === 'UPLOAD' && reply.code === 1)) {
    status = 'SUCCESS';
    progress = '100%';
  }
  await ctx.db.db
    .insertInto('midjourneys')
    .values({
      code: reply.code,
      user_id: auth.user.id,
      action,
      mj_id: mjId,
      prompt: typeof body.prompt === 'string' ? body.prompt : '',
      prompt_en: typeof props.promptEn === 'string' ? props.promptEn : '',
      description: reply.description ?? '',
      state: typeof body.state === 'string' ? body.state : '',
      submit_time: Date.now(),
      image_url: image,
      status,
      progress,
      fail_reason: accepted ? '' : `${reply.description ?? ''}`.slice(0, 500),
      channel_id: target.ch.id,
      quota,
      buttons: '[]',
      properties: storedProperties(props, binding),
      request_id: charge.requestId,
    })
    .execute();
}
