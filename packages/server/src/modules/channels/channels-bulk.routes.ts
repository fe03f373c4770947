import { ChannelStatus } from '@modelgate/shared';
import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { requireAdmin } from '../../http/auth.js';
import { AppError } from '../../http/errors.js';
import { nowSec, ok } from '../../http/reply.js';
import { adapterFor } from '../../relay/adapters/registry.js';
import { toRuntime } from '../../relay/channel-cache.js';
import type { ChannelWrite } from './channels.repository.js';

const ids = z.object({ ids: z.array(z.number().int()) });
const tagBody = z.object({ tag: z.string() });
const intLike = z.union([z.number(), z.string().regex(/^-?\d+$/).transform(Number)]);
const tagEdit = z.object({
  tag: z.string(),
  new_tag: z.string().nullish(),
  priority: intLike.nullish(),
  weight: intLike.nullish(),
  model_mapping: z.string().nullish(),
  models: z.string().nullish(),
  groups: z.string().nullish(),
});
const idParam = z.object({ id: z.string().regex(/^\d+$/).transform(Number) });

function list(v: string): string {
  return [...new Set(v.split(',').map((s) => s.trim()).filter(Boolean))].join(',');
}

/**
 * Bulk and tag operations, channel tests, balances and model fetching (spec §7 Channels,
 * reference §6). Admin only; keys are used server-side and never returned.
 */
export function channelsBulkRoutes(app: FastifyInstance, ctx: AppContext): void {
  const admin = requireAdmin(ctx);
  const repo = ctx.channels;

  app.delete('/api/channel/disabled', { preHandler: admin }, async () =>
    ok(await repo.removeMany(await repo.idsWhere({ statuses: [ChannelStatus.ManuallyDisabled, ChannelStatus.AutoDisabled] }))),
  );
  app.post('/api/channel/batch', { preHandler: admin }, async (req) => ok(await repo.removeMany(ids.parse(req.body).ids)));
  app.post('/api/channel/fix', { preHandler: admin }, async () => ok(await repo.fix()));
  app.post('/api/channel/batch/tag', { preHandler: admin }, async (req) => {
    const body = ids.extend({ tag: z.string().nullish() }).parse(req.body);
    return ok(await repo.updateMany(body.ids, { tag: body.tag?.trim() || null }));
  });
  for (const [path, status] of [
    ['/api/channel/tag/enabled', ChannelStatus.Enabled],
    ['/api/channel/tag/disabled', ChannelStatus.ManuallyDisabled],
  ] as const) {
    app.post(path, { preHandler: admin }, async (req) => {
      const { tag } = tagBody.parse(req.body);
      if (!tag.trim()) throw new AppError('INVALID_PARAMETER');
      await repo.updateMany(await repo.idsWhere({ tag }), { status, other_info: '' });
      return ok();
    });
  }
  app.put('/api/channel/tag', { preHandler: admin }, async (req) => {
    const b = tagEdit.parse(req.body);
    if (!b.tag.trim()) throw new AppError('INVALID_PARAMETER');
    const patch: ChannelWrite = {};
    // Empty values mean "no change"; an empty new tag dissolves the tag (spec §5).
    if (b.new_tag !== undefined && b.new_tag !== null) patch.tag = b.new_tag.trim() || null;
    if (b.priority !== undefined && b.priority !== null) patch.priority = Math.max(-999, b.priority);
    if (b.weight !== undefined && b.weight !== null) {
      if (b.weight < 0) throw new AppError('INVALID_PARAMETER');
      patch.weight = b.weight;
    }
    if (b.model_mapping) {
      try {
        JSON.parse(b.model_mapping);
      } catch {
        throw new AppError('CHANNEL_MAPPING_NOT_JSON');
      }
      patch.model_mapping = b.model_mapping;
    }
    if (b.models) patch.models = list(b.models);
    if (b.groups) patch.group = list(b.groups);
    await repo.updateMany(await repo.idsWhere({ tag: b.tag }), patch);
    return ok();
  });

  // One chat through the channel's adapter: {success, message, time (seconds)} at the top level.
  app.get('/api/channel/test/:id', { preHandler: admin }, async (req, reply) => {
    const { id } = idParam.parse(req.params);
    const row = await repo.get(id);
    if (!row) throw new AppError('CHANNEL_NOT_FOUND');
    const ch = toRuntime(row);
    const adapter = adapterFor(ch.type);
    const q = req.query as { model?: string };
    const requested = q.model?.trim() || row.test_model?.trim() || (row.models ?? '').split(',')[0]?.trim() || 'gpt-3.5-turbo';
    const model = q.model?.trim() ? (ch.modelMapping?.[requested] ?? requested) : requested;
    if (!adapter || !adapter.modes.has('chat')) return reply.send({ success: false, message: 'channel type not supported for testing', time: 0 });
    const body: Record<string, unknown> = { model, messages: [{ role: 'user', content: 'hi' }] };
    if (/^o[13]/.test(model)) body.max_completion_tokens = 10;
    else body.max_tokens = 1;
    const started = Date.now();
    try {
      const res = await request(adapter.url(ch.target, 'chat', model), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...adapter.headers(ch.target, 'chat') },
        body: JSON.stringify(body),
        dispatcher: ctx.relay.agent,
      });
      const text = await res.body.text();
      const ms = Date.now() - started;
      await repo.setStats(id, { response_time: ms, test_time: nowSec() });
      if (res.statusCode !== 200) return reply.send({ success: false, message: adapter.parseError(res.statusCode, text).message, time: ms / 1000 });
      return reply.send({ success: true, message: '', time: ms / 1000 });
    } catch (err) {
      return reply.send({ success: false, message: (err as Error).message, time: (Date.now() - started) / 1000 });
    }
  });

  // OpenAI and Custom expose the legacy billing endpoints (reference §6.2); others are "not implemented".
  app.get('/api/channel/update_balance/:id', { preHandler: admin }, async (req, reply) => {
    const { id } = idParam.parse(req.params);
    const row = await repo.get(id);
    if (!row) throw new AppError('CHANNEL_NOT_FOUND');
    const ch = toRuntime(row);
    if (ch.type !== 1 && ch.type !== 8) return reply.send({ success: false, message: '尚未实现', balance: 0 });
    const base = (ch.target.baseUrl || 'https://api.openai.com').replace(/\/+$/, '');
    const headers = { authorization: `Bearer ${ch.target.key}` };
    try {
      const sub = (await (await request(`${base}/v1/dashboard/billing/subscription`, { headers, dispatcher: ctx.relay.agent })).body.json()) as {
        hard_limit_usd?: number;
        has_payment_method?: boolean;
      };
      const now = new Date();
      const start = sub.has_payment_method ? new Date(now.getFullYear(), now.getMonth(), 1) : new Date(now.getTime() - 100 * 86400_000);
      const day = (d: Date) => d.toISOString().slice(0, 10);
      const usage = (await (await request(`${base}/v1/dashboard/billing/usage?start_date=${day(start)}&end_date=${day(now)}`, { headers, dispatcher: ctx.relay.agent })).body.json()) as {
        total_usage?: number;
      };
      const balance = Number(sub.hard_limit_usd ?? 0) - Number(usage.total_usage ?? 0) / 100;
      await repo.setStats(id, { balance, balance_updated_time: nowSec() });
      return reply.send({ success: true, message: '', balance });
    } catch (err) {
      return reply.send({ success: false, message: (err as Error).message, balance: 0 });
    }
  });

  app.get('/api/channel/fetch_models/:id', { preHandler: admin }, async (req) => {
    const { id } = idParam.parse(req.params);
    const row = await repo.get(id);
    if (!row) throw new AppError('CHANNEL_NOT_FOUND');
    const base = (row.base_url || 'https://api.openai.com').replace(/\/+$/, '');
    const res = await request(`${base}/v1/models`, { headers: { authorization: `Bearer ${row.key}` }, dispatcher: ctx.relay.agent });
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new AppError('INVALID_PARAMETER', 200, `upstream status ${res.statusCode}`);
    }
    const json = (await res.body.json()) as { data?: Array<{ id?: unknown }> };
    return ok((json.data ?? []).map((m) => String(m.id)).filter(Boolean));
  });
}
