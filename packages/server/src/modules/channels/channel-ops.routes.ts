import { SERVER_MESSAGES, type ServerMessageCode } from '@modelgate/shared';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { request } from 'undici';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { requireAdmin } from '../../http/auth.js';
import { AppError, localise } from '../../http/errors.js';
import { ok } from '../../http/reply.js';

const idParam = z.object({ id: z.string().regex(/^\d+$/, 'id must be a number').transform(Number) });
const fetchBody = z.object({ base_url: z.string().default(''), key: z.string().default('') });

/** Ops results carry either upstream text or one of our message codes; codes are localised. */
function text(req: FastifyRequest, message: string): string {
  return Object.hasOwn(SERVER_MESSAGES, message) ? localise(new AppError(message as ServerMessageCode), req) : message;
}

/**
 * Channel tests, balances and model fetching (spec §7 Channels, reference §6.1, §6.2). The
 * console reads `time` and `balance` at the top level of these answers, next to success/message.
 */
export function channelOpsRoutes(app: FastifyInstance, ctx: AppContext): void {
  const admin = requireAdmin(ctx);
  const ops = ctx.channelOps;

  const load = async (params: unknown) => {
    const { id } = idParam.parse(params);
    const row = await ctx.channels.get(id);
    if (!row) throw new AppError('CHANNEL_NOT_FOUND');
    return row;
  };

  app.get('/api/channel/test/:id', { preHandler: admin }, async (req) => {
    const row = await load(req.params);
    const r = await ops.test(row, (req.query as { model?: string }).model);
    return { success: r.success, message: text(req, r.message), time: Number(r.time.toFixed(3)) };
  });

  app.get('/api/channel/test', { preHandler: admin }, async () => {
    if (!ops.startTestAll()) throw new AppError('CHANNEL_TEST_RUNNING');
    return ok();
  });

  app.get('/api/channel/update_balance/:id', { preHandler: admin }, async (req) => {
    const row = await load(req.params);
    const r = await ops.updateBalance(row);
    return { success: r.success, message: text(req, r.message), balance: r.balance };
  });

  app.get('/api/channel/update_balance', { preHandler: admin }, async () => {
    if (ops.balanceRunning) throw new AppError('CHANNEL_BALANCE_RUNNING');
    const r = await ops.updateAllBalances();
    return ok(r);
  });

  /** Only OpenAI-format upstreams list models at `{base}/v1/models` (spec §5). */
  const fetchModels = async (baseUrl: string, key: string): Promise<string[]> => {
    const base = (baseUrl.trim() || 'https://api.openai.com').replace(/\/+$/, '');
    if (!/^https?:\/\//.test(base)) throw new AppError('CHANNEL_BASE_URL_INVALID');
    let res;
    try {
      res = await request(`${base}/v1/models`, {
        headers: { authorization: `Bearer ${key.trim()}` },
        dispatcher: ctx.relay.agent,
        signal: AbortSignal.timeout(20_000),
      });
    } catch (err) {
      throw new AppError('CHANNEL_FETCH_MODELS_FAILED', 200, (err as Error).message);
    }
    const body = await res.body.text();
    if (res.statusCode !== 200) throw new AppError('CHANNEL_FETCH_MODELS_FAILED', 200, `HTTP ${res.statusCode}`);
    try {
      const json = JSON.parse(body) as { data?: Array<{ id?: unknown }> };
      return [...new Set((json.data ?? []).map((m) => String(m.id ?? '')).filter(Boolean))];
    } catch {
      throw new AppError('CHANNEL_FETCH_MODELS_FAILED', 200, 'invalid JSON');
    }
  };

  app.get('/api/channel/fetch_models/:id', { preHandler: admin }, async (req) => {
    const row = await load(req.params);
    return ok(await fetchModels(row.base_url ?? '', row.key.split('\n')[0] ?? ''));
  });

  app.post('/api/channel/fetch_models', { preHandler: admin }, async (req) => {
    const b = fetchBody.parse(req.body ?? {});
    return ok(await fetchModels(b.base_url, b.key.split('\n')[0] ?? ''));
  });
}
