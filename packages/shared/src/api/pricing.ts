import { z } from 'zod';
import { resource } from './contract.js';
import { apiFailure, apiResponse, okMessage } from './envelope.js';

/** One model of the pricing page (console-api.md G8): `enable_groups` on every model. */
export const modelPricing = z
  .object({
    model_name: z.string(),
    /** 0 ratio-priced, 1 a fixed price per request. */
    quota_type: z.union([z.literal(0), z.literal(1)]),
    model_ratio: z.number(),
    model_price: z.number(),
    owner_by: z.string(),
    completion_ratio: z.number(),
    enable_groups: z.array(z.string()),
  })
  .meta({ id: 'ModelPricing' });
export type ModelPricing = z.infer<typeof modelPricing>;

/** `group_ratio` and `usable_group` sit at the top level, next to `data` (G8). */
export const pricingResponse = z.discriminatedUnion('success', [
  z.object({
    success: z.literal(true),
    message: okMessage,
    data: z.array(modelPricing),
    group_ratio: z.record(z.string(), z.number()),
    usable_group: z.record(z.string(), z.string()),
  }),
  apiFailure,
]);
export type PricingResponse = z.infer<typeof pricingResponse>;

export const pricingRoutes = resource('pricing', {
  'GET /api/pricing': { auth: 'public', summary: 'Model prices and the caller’s usable groups', response: pricingResponse },
  'GET /api/channel/models_enabled': {
    auth: 'admin',
    summary: 'Every model some enabled channel serves (the ratio editor lists those without a price)',
    response: apiResponse(z.array(z.string())),
  },
  'POST /api/channel/unpriced_models': {
    auth: 'admin',
    summary: 'Which of these model names the relay would refuse for want of a price (the channel form warns before saving)',
    body: z.object({ models: z.array(z.string().max(200)).max(1000) }),
    response: apiResponse(z.array(z.string())),
    audit: { skip: 'reads the price tables; changes nothing' },
  },
});
