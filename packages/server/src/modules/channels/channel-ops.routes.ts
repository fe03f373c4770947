import { ChannelType, isRootRole, SERVER_MESSAGES, type ServerMessageCode } from '@modelgate/shared';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { authGuards, caller } from '../../http/auth.js';
import { AppError, localise } from '../../http/errors.js';
import { ok } from '../../http/reply.js';
import { routeDeclarer } from '../../http/schema.js';
import type { ChannelRow } from '../../db/schema.js';
import { adapterFor } from '../../relay/adapters/registry.js';
import { getChain } from '../../relay/upstream-client.js';
import { probeFailure, probeWords } from './channel-probe.js';
import { assertChannelTarget } from './channel-target-guard.js';
import { channelSecrets, failureMessage, maskSecrets, type UpstreamFailure } from './upstream-failure.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'channelOps' | 'channels' | 'options' | 'relay' | 'sessions' | 'users'>;

/**
 * Ops results carry one of our message codes, or an upstream failure whose own words reach only
 * the log and root (upstream-failure.ts); never the upstream's body for an admin.
 */
function text(req: FastifyRequest, row: ChannelRow, r: { success: boolean; message: string; failure?: UpstreamFailure }): string {
  if (r.failure) return failureMessage(req, row.id, r.failure, r.message, channelSecrets(row.key));
  if (Object.hasOwn(SERVER_MESSAGES, r.message)) return localise(new AppError(r.message as ServerMessageCode), req);
  return r.success ? r.message : localise(new AppError('CHANNEL_UPSTREAM_BAD_RESPONSE'), req);
}

/**
 * Channel tests, balances and model fetching (spec §7 Channels, reference §6.1, §6.2). The
 * console reads `time` and `balance` at the top level of these answers, next to success/message.
 */
export function channelOpsRoutes(app: FastifyInstance, ctx: Deps): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  const ops = ctx.channelOps;

  const load = async (id: number) => {
    // Opened: tests, balances and model lists send the key upstream (a key that does not open is said plainly).
    const row = await ctx.channels.getOpened(id);
    if (!row) throw new AppError('CHANNEL_NOT_FOUND');
    return row;
  };

  declare('GET /api/channel/test/:id', {}, async (req) => {
    const row = await load(req.params.id);
    const r = await ops.test(row, req.query.model);
    return { success: r.success, message: text(req, row, r), time: Number(r.time.toFixed(3)) };
  });

  declare('GET /api/channel/test', {}, async () => {
    if (!ops.startTestAll()) throw new AppError('CHANNEL_TEST_RUNNING');
    return ok();
  });

  declare('GET /api/channel/update_balance/:id', {}, async (req) => {
    const row = await load(req.params.id);
    const r = await ops.updateBalance(row);
    return { success: r.success, message: text(req, row, r), balance: r.balance };
  });

  declare('GET /api/channel/update_balance', {}, async () => {
    if (ops.balanceRunning) throw new AppError('CHANNEL_BALANCE_RUNNING');
    const r = await ops.updateAllBalances();
    return ok(r);
  });

  const FETCH_TIMEOUT_MS = 20_000;
  /** Pages of a model list followed at most (Gemini pages with nextPageToken). */
  const MAX_PAGES = 10;
  /**
   * The upstream's model list, asked the way the channel type's adapter says (OpenAI's
   * `{base}/v1/models` unless the adapter knows better: Gemini's `models`, Anthropic's headers).
   * Failures name a status or transport code only; what the upstream said goes to the log.
   */
  const fetchModels = async (req: FastifyRequest, type: number, baseUrl: string, key: string, trusted: boolean): Promise<string[]> => {
    const adapter = adapterFor(type) ?? adapterFor(ChannelType.OpenAI)!;
    const base = baseUrl.trim().replace(/\/+$/, '');
    if (base && !/^https?:\/\//.test(base)) throw new AppError('CHANNEL_BASE_URL_INVALID');
    // Root's (or a root-placed channel's) target goes through the relay's pool; any other is checked when connecting, like the relay.
    const target = { id: 0, type, key: key.trim(), baseUrl: base, other: '', organization: '', setting: {}, guard: trusted ? undefined : ctx.relay.guard };
    // The pages, one GET each through the relay's exchange, until the adapter names no next page.
    const got = await getChain({
      pools: ctx.relay,
      adapter,
      target,
      lang: 'en',
      timeoutMs: FETCH_TIMEOUT_MS,
      next: (pages) => {
        if (pages.length === 0) return adapter.modelListRequest(target);
        const next = pages.length < MAX_PAGES ? adapter.readModelList(pages.at(-1)).next : undefined;
        return next ? adapter.modelListRequest(target, next) : undefined;
      },
    });
    if (!got.ok) {
      const failure = probeFailure(got, 'invalid JSON', FETCH_TIMEOUT_MS, got.url);
      if (failure.code === 'CHANNEL_TARGET_REFUSED') throw new AppError('CHANNEL_TARGET_REFUSED');
      // The key may ride in the URL (PaLM's ?key=) or be echoed back: masked before it is logged.
      const upstream = got.text ?? probeWords(got, FETCH_TIMEOUT_MS);
      req.log.warn({ url: maskSecrets(got.url, [key.trim()]), detail: failure.detail, upstream: maskSecrets(upstream.slice(0, 2000), [key.trim()]) }, 'channel model fetch failed');
      throw new AppError('CHANNEL_FETCH_MODELS_FAILED', 200, failure.detail);
    }
    return [...new Set(got.replies.flatMap((page) => adapter.readModelList(page).models))];
  };

  declare('GET /api/channel/fetch_models/:id', {}, async (req) => {
    const row = await load(req.params.id);
    return ok(await fetchModels(req, row.type, row.base_url ?? '', row.key.split('\n')[0] ?? '', Number(row.target_trusted) === 1));
  });

  declare('POST /api/channel/fetch_models', {}, async (req) => {
    const b = req.body;
    // An address typed here is probed like a saved channel's: the same limit on where a non-root admin may point.
    await assertChannelTarget(ctx.options, b.base_url, caller(req).role);
    return ok(await fetchModels(req, b.type ?? ChannelType.OpenAI, b.base_url, b.key.split('\n')[0] ?? '', isRootRole(caller(req).role)));
  });
}
