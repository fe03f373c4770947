import { DEFAULT_CACHE_RATIO, DEFAULT_COMPLETION_RATIO, DEFAULT_CREATE_CACHE_RATIO, DEFAULT_MODEL_PRICE, DEFAULT_MODEL_RATIO, langFromHeader, serverMessage } from '@modelgate/shared';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { authGuards, resolveCaller } from '../../http/auth.js';
import { ok } from '../../http/reply.js';
import { routeDeclarer } from '../../http/schema.js';
import { priceFor } from '../../relay/billing/pricing.js';
import { modelOwner } from '../../relay/model-owners.js';
import { pricingTables } from '../../relay/relay.service.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'options' | 'relay' | 'sessions' | 'users'>;

async function optionalCaller(ctx: Deps, req: FastifyRequest) {
  try {
    return await resolveCaller(ctx, req);
  } catch {
    return null;
  }
}

/** gpt models first (spec §9), then by name. */
function byPricingOrder(a: string, b: string): number {
  const ga = a.startsWith('gpt') ? 0 : 1;
  const gb = b.startsWith('gpt') ? 0 : 1;
  return ga - gb || a.localeCompare(b);
}

/** `GET /api/pricing` (public, console-api.md G8) and the root reset of the ratio tables. */
export function pricingRoutes(app: FastifyInstance, ctx: Deps): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  declare('GET /api/pricing', {}, async (req) => {
    const me = await optionalCaller(ctx, req);
    const userGroup = me?.group ?? 'default';
    await ctx.relay.channels.ensure();
    const tables = pricingTables(ctx);
    const groupsByModel = ctx.relay.channels.groupsByModel();
    const allowUnpriced = ctx.options.bool('AllowUnpricedModels');
    const data = [...groupsByModel.keys()].sort(byPricingOrder).flatMap((model) => {
      const p = priceFor(model, 'default', tables);
      // A model the relay refuses for want of a price is not offered (relay.service.ts assertPriced).
      if (p.modelPrice < 0 && !p.ratioFound && !allowUnpriced) return [];
      return {
        model_name: model,
        quota_type: p.modelPrice >= 0 ? (1 as const) : (0 as const),
        model_ratio: p.modelRatio,
        model_price: p.modelPrice >= 0 ? p.modelPrice : 0,
        owner_by: modelOwner(model),
        completion_ratio: p.completionRatio,
        enable_groups: [...(groupsByModel.get(model) ?? [])].sort(),
      };
    });
    const usable = ctx.options.usableGroups(userGroup, langFromHeader(req.headers['accept-language']));
    const groupRatio: Record<string, number> = {};
    for (const g of Object.keys(usable)) if (Object.hasOwn(tables.groupRatio, g)) groupRatio[g] = tables.groupRatio[g]!;
    return { success: true as const, message: '' as const, data, group_ratio: groupRatio, usable_group: usable };
  });

  declare('GET /api/channel/models_enabled', {}, async () => {
    await ctx.relay.channels.ensure();
    return ok([...ctx.relay.channels.groupsByModel().keys()].sort(byPricingOrder));
  });

  declare('POST /api/channel/unpriced_models', {}, async (req) => {
    // Empty when the operator lets unpriced models through: then nothing will fail for want of a price.
    if (ctx.options.bool('AllowUnpricedModels')) return ok([]);
    const tables = pricingTables(ctx);
    const names = [...new Set(req.body.models.map((m) => m.trim()).filter(Boolean))];
    return ok(names.filter((model) => {
      const p = priceFor(model, 'default', tables);
      return p.modelPrice < 0 && !p.ratioFound;
    }));
  });

  // The misspelt path is the reference's (console-api.md §5).
  // The reference resets the model ratios and says so; this console's reset (scope=all) restores every price table.
  declare('POST /api/option/rest_model_ratio', {}, async (req) => {
    const lang = langFromHeader(req.headers['accept-language']);
    await ctx.options.update('ModelRatio', JSON.stringify(DEFAULT_MODEL_RATIO, null, 2));
    if (req.query.scope !== 'all') return { success: true as const, message: serverMessage('OPTION_MODEL_RATIO_RESET', lang) };
    await ctx.options.update('CompletionRatio', JSON.stringify(DEFAULT_COMPLETION_RATIO, null, 2));
    await ctx.options.update('ModelPrice', JSON.stringify(DEFAULT_MODEL_PRICE, null, 2));
    await ctx.options.update('CacheRatio', JSON.stringify(DEFAULT_CACHE_RATIO, null, 2));
    await ctx.options.update('CreateCacheRatio', JSON.stringify(DEFAULT_CREATE_CACHE_RATIO, null, 2));
    return { success: true as const, message: serverMessage('OPTION_PRICE_TABLES_RESET', lang) };
  });
}
