import { SERVER_MESSAGES, type ServerMessageCode } from '@modelgate/shared';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { request } from 'undici';
import type { AppContext } from '../../context.js';
import { authGuards } from '../../http/auth.js';
import { AppError, localise } from '../../http/errors.js';
import { ok } from '../../http/reply.js';
import { routeDeclarer } from '../../http/schema.js';
import type { ChannelRow } from '../../db/schema.js';
import { channelSecrets, failureMessage, transportFailure, type UpstreamFailure } from './upstream-failure.js';

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
export function channelOpsRoutes(app: FastifyInstance, ctx: AppContext): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  const ops = ctx.channelOps;

  const load = async (id: number) => {
    const row = await ctx.channels.get(id);
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

  /** Only OpenAI-format upstreams list models at `{base}/v1/models` (spec §5). */
  const FETCH_TIMEOUT_MS = 20_000;
  /** Failures name a status or transport code only; what the upstream said goes to the log. */
  const fetchModels = async (req: FastifyRequest, baseUrl: string, key: string): Promise<string[]> => {
    const base = (baseUrl.trim() || 'https://api.openai.com').replace(/\/+$/, '');
    if (!/^https?:\/\//.test(base)) throw new AppError('CHANNEL_BASE_URL_INVALID');
    const failed = (detail: string, upstream: string): AppError => {
      req.log.warn({ url: `${base}/v1/models`, detail, upstream: upstream.slice(0, 2000) }, 'channel model fetch failed');
      return new AppError('CHANNEL_FETCH_MODELS_FAILED', 200, detail);
    };
    let res;
    let body;
    try {
      res = await request(`${base}/v1/models`, {
        headers: { authorization: `Bearer ${key.trim()}` },
        dispatcher: ctx.relay.agent,
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
      body = await res.body.text();
    } catch (err) {
      throw failed(transportFailure(err, FETCH_TIMEOUT_MS).detail, (err as Error).message);
    }
    if (res.statusCode !== 200) throw failed(`HTTP ${res.statusCode}`, body);
    let json: { data?: Array<{ id?: unknown }>; error?: unknown };
    try {
      json = JSON.parse(body) as typeof json;
    } catch {
      throw failed('invalid JSON', body);
    }
    if (json?.error) throw failed('HTTP 200: error object', body);
    try {
      return [...new Set((json?.data ?? []).map((m) => String(m.id ?? '')).filter(Boolean))];
    } catch {
      throw failed('invalid JSON', body);
    }
  };

  declare('GET /api/channel/fetch_models/:id', {}, async (req) => {
    const row = await load(req.params.id);
    return ok(await fetchModels(req, row.base_url ?? '', row.key.split('\n')[0] ?? ''));
  });

  declare('POST /api/channel/fetch_models', {}, async (req) => {
    const b = req.body;
    return ok(await fetchModels(req, b.base_url, b.key.split('\n')[0] ?? ''));
  });
}
